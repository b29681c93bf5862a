import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binaryEnvName } from "./agent-suts.ts";
import { CLAUDE_SUCCESS, fakeClaude } from "./commands/adapters.test-helpers.ts";
import { resolveSut, runSut, splitCommand } from "./sut-resolver.ts";
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

describe("runSut", () => {
  it("resolves a non-agent spec at once; a cli: agent once the run has loaded the task class, with its agent declaration", async () => {
    expect(typeof (await runSut("module:sut.mjs#fix", options, null))).toBe("object");
    const fake = fakeClaude({ stream: CLAUDE_SUCCESS });
    const agentOptions = { ...options, env: { PATH: process.env.PATH, [binaryEnvName("claude-code")]: fake.binaryPath }, allowCliSubscription: true, acknowledgeUnsandboxedCli: true, allowStaleCompliance: true, agentNetwork: "host" as const };
    const chooser = await runSut("cli:claude-code", agentOptions, null);
    expect(typeof chooser).toBe("function");
    const taskClass = (agent: unknown) => ({ taskClass: { name: "t", agent }, cases: [] }) as never;
    const choose = chooser as (selected: never) => Promise<{ label: string }>;
    expect((await choose(taskClass(null))).label).toBe("cli:claude-code");
    // The class's flags reach the backend, which refuses a permission bypass among them as it does on the command line.
    await expect(choose(taskClass({ adapters: { "claude-code": { args: ["--dangerously-skip-permissions"] } } }))).rejects.toThrow(expect.objectContaining({ code: "EVAL_ADAPTER_INVALID" }));
  }, 60_000);

  it("for a shard, loads the task class before resolving a cli: agent", async () => {
    await expect(runSut("cli:claude-code", options, { taskClass: "t" })).rejects.toThrow(expect.objectContaining({ code: "EVAL_BENCH_DIR_MISSING" }));
  });
});
