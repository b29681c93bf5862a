import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveSut, splitCommand } from "./sut-resolver.ts";
import type { SutResolverOptions } from "./sut-resolver.ts";

let dir: string;
let options: SutResolverOptions;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "evalgate-sut-"));
  await writeFile(join(dir, "sut.mjs"), "export async function fix() { return { cost_usd: 0 }; }\nexport default async () => ({});\nexport const value = 1;\n");
  options = { cwd: dir, env: {}, stateDir: join(dir, ".evalgate"), benchRoot: join(dir, "bench"), record: false, allowCliSubscription: false, acknowledgeUnsandboxedCli: false, allowStaleCompliance: false, onWarning: () => {} };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("splitCommand", () => {
  it("splits on whitespace, honours quotes and escapes, expands nothing", () => {
    expect(splitCommand(`node fix.ts --name "two words" 'it''s' a\\ b $HOME`)).toEqual(["node", "fix.ts", "--name", "two words", "its", "a b", "$HOME"]);
    expect(splitCommand(`""`)).toEqual([""]);
    expect(splitCommand("   ")).toEqual([]);
    expect(() => splitCommand(`node "unterminated`)).toThrow(/unterminated/);
  });
});

describe("resolveSut", () => {
  it("resolves module: specs relative to cwd, with a digest of the file", async () => {
    const sut = await resolveSut("module:sut.mjs#fix", options);
    expect(sut.label).toBe("module:sut.mjs#fix");
    expect(sut.digest).toMatch(/^blake3:/);
    expect((await resolveSut("module:sut.mjs", options)).label).toBe("module:sut.mjs#default");
  });

  it("refuses module specs that name no file, a missing file or a non-function export", async () => {
    await expect(resolveSut("module:#fix", options)).rejects.toMatchObject({ code: "EVAL_SUT_INVALID" });
    await expect(resolveSut("module:missing.mjs#fix", options)).rejects.toMatchObject({ code: "EVAL_SUT_INVALID" });
    await expect(resolveSut("module:sut.mjs#value", options)).rejects.toThrow(/no function export "value"/);
  });

  it("resolves command: specs and refuses an empty one", async () => {
    const sut = await resolveSut("command:node sut.mjs", options);
    expect(sut.label).toBe("command:node sut.mjs");
    await expect(resolveSut("command:   ", options)).rejects.toMatchObject({ code: "EVAL_SUT_INVALID" });
  });

  it("refuses unknown specs and unknown adapters", async () => {
    await expect(resolveSut("telepathy", options)).rejects.toThrow(/unknown SUT spec/);
    await expect(resolveSut("cli:nonesuch", options)).rejects.toMatchObject({ code: "EVAL_SUT_INVALID" });
  });
});
