import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SutInvocation } from "@eval/models";
import { sutCaseOf } from "@eval/models";
import { makeCase } from "./bench.test-helpers.ts";
import { canarySeedFor, checkSutOutput, moduleSut, SutAborted } from "./sut.ts";

let dir: string;
let invocation: (overrides?: Partial<SutInvocation>) => Promise<SutInvocation>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "evalgate-sut-test-"));
  await writeFile(
    join(dir, "mod.mjs"),
    `export const asObject = { label: "custom", digest: "blake3:${"c".repeat(64)}", run: async () => ({ ok: true }) };\nexport const broken = { run: 1 };\nexport default async () => [];\n`,
  );
  await writeFile(join(dir, "throws.mjs"), `throw new Error("cannot load me");\n`);
  await writeFile(
    join(dir, "spin.mjs"),
    "export function spin() { for (;;) {} }\nexport async function tagged(invocation) { return { tag: invocation.invocationTag, case_id: invocation.benchCase.case_id, aborted: invocation.signal.aborted }; }\nexport async function fails() { throw new RangeError('the SUT fell over'); }\n",
  );
  const benchCase = await makeCase(dir, "sut-case");
  invocation = async (overrides = {}) => ({
    benchCase: sutCaseOf(benchCase),
    workspacePath: await mkdtemp(join(tmpdir(), "evalgate-sut-ws-")),
    canarySeed: canarySeedFor(benchCase.cassette_canary_pin),
    signal: new AbortController().signal,
    timeoutMs: 5000,
    invocationTag: "bench:2026-01-01T00:00:00.000Z:adversarial:sut-case",
    ...overrides,
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("moduleSut", () => {
  it("accepts an object implementing SystemUnderTest and validates outputs", async () => {
    const sut = await moduleSut("mod.mjs#asObject", { cwd: dir });
    expect(sut.label).toBe("custom");
    expect(await sut.run(await invocation())).toEqual({ ok: true });
    const arrays = await moduleSut("mod.mjs", { cwd: dir });
    await expect(arrays.run(await invocation())).rejects.toThrow(/not a JSON object/);
  });

  it("refuses broken exports and modules that fail to load", async () => {
    await expect(moduleSut("mod.mjs#broken", { cwd: dir })).rejects.toMatchObject({ code: "EVAL_SUT_INVALID" });
    await expect(moduleSut("throws.mjs#x", { cwd: dir })).rejects.toThrow(/cannot import module SUT .*cannot load me/);
    await expect(moduleSut(join(dir, "nope.mjs"))).rejects.toThrow(/does not exist/);
  });
});

describe("moduleSut deadlines (a worker per case)", () => {
  it("passes the invocation (tag, case, a live signal) and returns the export's output", async () => {
    const sut = await moduleSut("spin.mjs#tagged", { cwd: dir });
    const call = await invocation();
    expect(await sut.run(call)).toEqual({ tag: call.invocationTag, case_id: "sut-case", aborted: false });
    // The same worker serves the next case.
    expect((await sut.run(await invocation())).case_id).toBe("sut-case");
    await expect((await moduleSut("spin.mjs#fails", { cwd: dir })).run(await invocation())).rejects.toThrow(
      /the SUT fell over/,
    );
  });

  it("stops a SUT that loops without ever yielding when its signal aborts (the harness thread stays free)", async () => {
    const sut = await moduleSut("spin.mjs#spin", { cwd: dir });
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 300);
    await expect(sut.run(await invocation({ signal: controller.signal }))).rejects.toBeInstanceOf(SutAborted);
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});

describe("helpers", () => {
  it("derives a 64-hex canary seed deterministically from the pin", () => {
    expect(canarySeedFor("0".repeat(32))).toMatch(/^[0-9a-f]{64}$/);
    expect(canarySeedFor("0".repeat(32))).toBe(canarySeedFor("0".repeat(32)));
    expect(canarySeedFor("0".repeat(32))).not.toBe(canarySeedFor(`${"0".repeat(31)}1`));
  });

  it("checkSutOutput rejects non-objects and negative cost", () => {
    expect(() => checkSutOutput(null)).toThrow(/not a JSON object/);
    expect(() => checkSutOutput({ cost_usd: -1 })).toThrow(/invalid/);
    expect(checkSutOutput({ cost_usd: 1, extra: "kept" })).toEqual({ cost_usd: 1, extra: "kept" });
  });
});
