import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SutInvocation } from "@eval/models";
import { makeCase } from "./bench.test-helpers.ts";
import { canarySeedFor, checkSutOutput, commandSut, moduleSut, SutAborted } from "./sut.ts";

let dir: string;
let invocation: (overrides?: Partial<SutInvocation>) => Promise<SutInvocation>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "evalgate-sut-test-"));
  await writeFile(
    join(dir, "echo.mjs"),
    `import { readFileSync } from "node:fs";
     const request = JSON.parse(readFileSync(0, "utf8"));
     const mode = process.argv[2];
     if (mode === "fail") { console.error("first line\\nthe real reason"); process.exit(4); }
     if (mode === "garbage") { process.stdout.write("not json"); process.exit(0); }
     if (mode === "flood") { process.stdout.write("x".repeat(4096)); process.exit(0); }
     if (mode === "hang") { const { spawn } = await import("node:child_process"); const child = spawn("sleep", ["30"], { stdio: "ignore" }); console.error("CHILD=" + child.pid); setInterval(() => {}, 1000); }
     else process.stdout.write(JSON.stringify({ cost_usd: 0.5, tag: process.env.EVALGATE_BENCH_INVOCATION_TAG, cwd: process.cwd(), seed: request.canary_seed, case_id: request.case.case_id, schema: request.schema_version }));`,
  );
  await writeFile(join(dir, "mod.mjs"), `export const asObject = { label: "custom", digest: "blake3:${"c".repeat(64)}", run: async () => ({ ok: true }) };\nexport const broken = { run: 1 };\nexport default async () => [];\n`);
  await writeFile(join(dir, "throws.mjs"), `throw new Error("cannot load me");\n`);
  const benchCase = await makeCase(dir, "sut-case");
  invocation = async (overrides = {}) => ({
    benchCase,
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

describe("commandSut", () => {
  it("sends a SutRequest on stdin, runs in the workspace with the invocation tag, returns its JSON", async () => {
    const sut = commandSut([process.execPath, "echo.mjs"], { cwd: dir });
    const call = await invocation();
    const output = await sut.run(call);
    expect(output).toMatchObject({ cost_usd: 0.5, tag: call.invocationTag, seed: call.canarySeed, case_id: "sut-case", schema: "evalgate.sut_request.v1" });
    expect(output.cwd).toBe(call.workspacePath);
    expect(sut.label).toBe(`command:${process.execPath} echo.mjs`);
  });

  it("has a digest that follows the script's bytes", async () => {
    const before = commandSut([process.execPath, "echo.mjs"], { cwd: dir }).digest;
    expect(commandSut([process.execPath, "echo.mjs"], { cwd: dir }).digest).toBe(before);
    await writeFile(join(dir, "copy.mjs"), "// other\n");
    expect(commandSut([process.execPath, "copy.mjs"], { cwd: dir }).digest).not.toBe(before);
    expect(commandSut(["x"], { digest: "blake3:given" }).digest).toBe("blake3:given");
  });

  it("reports a non-zero exit with the last stderr line, invalid JSON, an overlong stdout and a missing program", async () => {
    await expect(commandSut([process.execPath, "echo.mjs", "fail"], { cwd: dir }).run(await invocation())).rejects.toThrow("exited 4: the real reason");
    await expect(commandSut([process.execPath, "echo.mjs", "garbage"], { cwd: dir }).run(await invocation())).rejects.toThrow(/not one JSON document/);
    await expect(commandSut([process.execPath, "echo.mjs", "flood"], { cwd: dir, maxStdoutBytes: 100 }).run(await invocation())).rejects.toThrow(/exceeded 100 bytes/);
    await expect(commandSut(["/nonexistent/program"]).run(await invocation())).rejects.toThrow(/cannot start/);
    expect(() => commandSut([])).toThrow(/needs a program/);
  });

  it("kills its whole process group on abort", async () => {
    const controller = new AbortController();
    const sut = commandSut([process.execPath, "echo.mjs", "hang"], { cwd: dir, env: { PATH: process.env.PATH } });
    const running = sut.run(await invocation({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 500);
    await expect(running).rejects.toBeInstanceOf(SutAborted);
    const aborted = new AbortController();
    aborted.abort();
    await expect(sut.run(await invocation({ signal: aborted.signal }))).rejects.toBeInstanceOf(SutAborted);
  });
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
