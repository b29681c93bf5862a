// The `--sut` grammar, the default-SUT rule and the resolver's defaults, in the runner (no command line).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SystemUnderTest } from "@eval/models";
import { sandboxSupport } from "@eval/sandbox";
import { HALF_UPPER_SUT, makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { planRun } from "./plan.ts";
import { defaultSutSpec, parseSutSpec, resolveSutSpec, splitCommand, sutFromSpec } from "./sut-spec.ts";
import type { AgentSutFactory, SutResolveOptions } from "./sut-spec.ts";

const sandboxed = sandboxSupport().available;
let root: string;
let bench: { benchRoot: string; benchPath: string; slug: string };
let options: SutResolveOptions;
const taskClass = { name: "upper", agent: null } as never;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "evalgate-sut-spec-"));
  bench = await makeTaskClassBench(root, { rubric: UPPER_RUBRIC, cases: { "c-1": "alpha", "c-2": "beta" } });
  writeFileSync(join(root, "sut.mjs"), HALF_UPPER_SUT);
  // A SUT written for this repository: it knows where the bench's answers and the state directory are.
  writeFileSync(
    join(root, "cheat.mjs"),
    `import { readFileSync } from "node:fs";
     const tries = ${JSON.stringify([join(bench.benchPath, "cases", "c-1", "expected", "text.txt"), join(root, "state", "cache.key")])};
     process.stdout.write(JSON.stringify({ found: tries.map((path) => { try { return readFileSync(path, "utf8"); } catch (error) { return error.code; } }) }));`,
  );
  mkdirSync(join(root, "state"), { recursive: true });
  writeFileSync(join(root, "state", "cache.key"), "the cache's MAC key");
  options = { cwd: root, benchRoot: bench.benchRoot, stateDir: join(root, "state"), env: { PATH: process.env.PATH } };
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("parseSutSpec", () => {
  it("parses module:, command: and agent kinds by name; refuses what the grammar does not accept", () => {
    expect(parseSutSpec("module:sut.mjs#fix")).toEqual({ kind: "module", specifier: "sut.mjs#fix" });
    expect(parseSutSpec(`command:python3 "fix me.py" --fast`)).toEqual({
      kind: "command",
      argv: ["python3", "fix me.py", "--fast"],
    });
    expect(parseSutSpec("replay")).toEqual({ kind: "agent", name: "replay", argument: null });
    expect(parseSutSpec("cli:claude-code")).toEqual({ kind: "agent", name: "cli", argument: "claude-code" });
    expect(() => parseSutSpec("command:   ")).toThrow(
      expect.objectContaining({ code: "EVAL_SUT_INVALID", message: expect.stringContaining("needs a program") }),
    );
    for (const bad of ["", "Telepathy", "../sut.mjs", "x y"])
      expect(() => parseSutSpec(bad)).toThrow(expect.objectContaining({ code: "EVAL_SUT_INVALID" }));
  });

  it("splits command: specs on whitespace, honours quotes and escapes, expands nothing", () => {
    expect(splitCommand(`node fix.ts --name "two words" 'it''s' a\\ b $HOME`)).toEqual([
      "node",
      "fix.ts",
      "--name",
      "two words",
      "its",
      "a b",
      "$HOME",
    ]);
    expect(splitCommand(`""`)).toEqual([""]);
    expect(splitCommand("   ")).toEqual([]);
    expect(() => splitCommand(`node "unterminated`)).toThrow(/unterminated/);
  });
});

describe("defaultSutSpec", () => {
  it("is replay when a selected case has a cassette or none is selected; otherwise refused with the accepted specs", () => {
    expect(defaultSutSpec("t", [])).toBe("replay");
    expect(defaultSutSpec("t", [{ cassette_path: null }, { cassette_path: "/c" }])).toBe("replay");
    expect(() => defaultSutSpec("t", [{ cassette_path: null }])).toThrow(
      expect.objectContaining({ code: "EVAL_SUT_INVALID", hint: expect.stringContaining("command:<argv>") }),
    );
  });
});

describe("resolveSutSpec", () => {
  it("resolves a command: SUT without the sandbox only when asked, with the harness's environment", async () => {
    const sut = await resolveSutSpec(`command:${process.execPath} sut.mjs`, taskClass, { ...options, sandbox: "none" });
    expect(sut).toMatchObject({ label: `command:${process.execPath} sut.mjs`, isolation: "process" });
  });

  it("resolves module: specs relative to cwd and refuses a missing file", async () => {
    expect((await resolveSutSpec("module:sut.mjs#full", taskClass, options)).label).toBe("module:sut.mjs#full");
    await expect(resolveSutSpec("module:missing.mjs#fix", taskClass, options)).rejects.toMatchObject({
      code: "EVAL_SUT_INVALID",
    });
  });

  it("resolves an agent kind by its registered name, with the argument and the loaded task class; an unregistered kind is refused naming the ones there are", async () => {
    const seen: unknown[] = [];
    const fake: SystemUnderTest = { label: "fake", digest: "blake3:00", run: async () => ({}) };
    const cli: AgentSutFactory = async (request) => {
      seen.push(request);
      return fake;
    };
    expect(await resolveSutSpec("cli:claude-code", taskClass, { ...options, agents: { cli } })).toBe(fake);
    expect(seen).toEqual([{ spec: "cli:claude-code", argument: "claude-code", taskClass }]);
    await expect(resolveSutSpec("replay", taskClass, options)).rejects.toThrow(
      expect.objectContaining({
        code: "EVAL_SUT_INVALID",
        message: expect.stringContaining('unknown SUT spec "replay"'),
      }),
    );
    await expect(resolveSutSpec("replay", taskClass, { ...options, agents: { cli } })).rejects.toThrow(
      expect.objectContaining({ hint: expect.stringContaining("| cli") }),
    );
    // A kind is looked up as the table's own key, never through its prototype.
    await expect(resolveSutSpec("constructor", taskClass, { ...options, agents: { cli } })).rejects.toMatchObject({
      code: "EVAL_SUT_INVALID",
    });
  });

  it.runIf(sandboxed)(
    "hides the bench and the state directory from a command: SUT by default (the caller adds, never removes)",
    async () => {
      const sut = await resolveSutSpec(`command:${process.execPath} cheat.mjs`, taskClass, options);
      expect(sut.isolation).toBe("bwrap");
      const workspacePath = mkdtempSync(join(tmpdir(), "evalgate-sut-spec-ws-"));
      try {
        const invocation = {
          benchCase: { case_id: "c-1" } as never,
          workspacePath,
          canarySeed: "0",
          signal: new AbortController().signal,
          timeoutMs: 30_000,
          invocationTag: "bench:t",
        };
        expect((await sut.run(invocation)).found).toEqual(["ENOENT", "ENOENT"]);
      } finally {
        rmSync(workspacePath, { recursive: true, force: true });
      }
      // Naming a file under the state directory in argv is refused before anything runs.
      await expect(
        resolveSutSpec(`command:${process.execPath} ${join(root, "state", "cache.key")}`, taskClass, options),
      ).rejects.toThrow(/must never see/);
    },
    60_000,
  );
});

describe("one default rule for run and plan", () => {
  it("a plan without a spec takes the run's default: refused for a class without cassettes, before anything is written", async () => {
    await expect(
      planRun(bench.slug, {
        systemUnderTest: sutFromSpec(undefined, options),
        benchRoot: bench.benchRoot,
        sandbox: "none",
      }),
    ).rejects.toThrow(
      expect.objectContaining({
        code: "EVAL_SUT_INVALID",
        message: expect.stringContaining("no selected case of upper has a cassette"),
      }),
    );
  });

  it("a plan with a spec persists it, and the spec read back from the plan resolves to the same SUT", async () => {
    const plan = await planRun(bench.slug, {
      systemUnderTest: sutFromSpec("module:sut.mjs#full", options),
      sutSpec: "module:sut.mjs#full",
      benchRoot: bench.benchRoot,
      sandbox: "none",
    });
    expect(plan.sut.spec).toBe("module:sut.mjs#full");
    const again = await resolveSutSpec(plan.sut.spec, taskClass, options);
    expect(again.digest).toBe(plan.sut.digest);
  }, 60_000);
});
