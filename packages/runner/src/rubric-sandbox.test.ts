// Rubrics that attack the host, in Node, Python and shell. Each attack is run twice: with `--sandbox none`
// (what every rubric had before the sandbox) it succeeds, which shows the test can see it; in the
// bubblewrap sandbox (the default) it fails.
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BenchCase, RubricRequest } from "@eval/models";
import { sandboxSupport } from "@eval/sandbox";
import { hostUidsOf } from "@eval/test-utils";
import { makeCase, makeRubricBench } from "./bench.test-helpers.ts";
import { prepareRubricLauncher } from "./rubric-isolation.ts";
import type { SandboxMode } from "./rubric-isolation.ts";

const sandboxed = sandboxSupport().available;
const SECRET = "sk-ant-planted-by-the-test";
let benchPath: string;
let other: BenchCase;
let stateFile: string;
/** A host process started with an API key in its environment (as the harness is): what /proc attacks look for. */
let keyHolder: ChildProcess;

/** A Node rubric whose score says what its attack found: 1 when it succeeded. */
const NODE_ATTACKS = String.raw`
import { readFileSync, writeFileSync } from "node:fs";
const request = JSON.parse(readFileSync(0, "utf8"));
const attack = request.harness_output.attack;
const target = request.harness_output.target;
let found = false;
try {
  if (attack === "read") found = readFileSync(target, "utf8").length > 0;
  if (attack === "environ") found = readFileSync("/proc/" + target + "/environ", "utf8").includes("${SECRET}");
  if (attack === "write") { writeFileSync(target, "forged"); found = true; }
  if (attack === "sqlite") { const { DatabaseSync } = await import("node:sqlite"); new DatabaseSync(target).exec("create table forged(x)"); found = true; }
  if (attack === "kill") { process.kill(Number(target), 0); found = true; }
} catch (error) { process.stderr.write(String(error.code ?? error.message) + "\n"); }
process.stdout.write(JSON.stringify({ schema_version: "evalgate.rubric_response.v1", score: { passed: found, score: found ? 1 : 0, breakdown: {}, failure_modes: [], cost_usd: 0, wall_clock_ms: 0 } }));
`;

/** The same attacks from a Python rubric (a declared rubric_command). */
const PYTHON_ATTACKS = String.raw`#!/usr/bin/python3
import json, os, sys
request = json.load(sys.stdin)
attack, target = request["harness_output"]["attack"], request["harness_output"]["target"]
found = False
try:
    if attack == "read": found = len(open(target).read()) > 0
    if attack == "environ": found = "${SECRET}" in open("/proc/%s/environ" % target).read()
    if attack == "write": open(target, "w").write("forged"); found = True
    if attack == "kill": os.kill(int(target), 0); found = True
    if attack == "sysctl": os.close(os.open("/proc/sys/kernel/core_uses_pid", os.O_WRONLY)); found = True
    if attack == "comm":
        open("/proc/self/comm", "w").write(target)
        import time
        time.sleep(3)
    if attack == "daemon":
        if os.fork() == 0:
            os.setsid()
            null = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2): os.dup2(null, fd)
            import time
            while True:
                open(target, "w").write(str(time.time())); time.sleep(0.1)
        found = True
except Exception as error:
    sys.stderr.write(repr(error) + "\n")
print(json.dumps({"schema_version": "evalgate.rubric_response.v1", "score": {"passed": found, "score": 1 if found else 0, "breakdown": {}, "failure_modes": [], "cost_usd": 0, "wall_clock_ms": 0}}))
`;

beforeAll(async () => {
  keyHolder = spawn("sleep", ["120"], { env: { ...process.env, ANTHROPIC_API_KEY: SECRET }, stdio: "ignore" });
  benchPath = await makeRubricBench(NODE_ATTACKS);
  writeFileSync(join(benchPath, "rubric.py"), PYTHON_ATTACKS, { mode: 0o755 });
  other = await makeCase(benchPath, "other-case");
  writeFileSync(join(other.expected_path, "answer.txt"), "another case's answer");
  const state = join(benchPath, "..", "state", "cache");
  mkdirSync(state, { recursive: true });
  stateFile = join(state, "entry.json");
  writeFileSync(stateFile, '{"passed":false}');
});
afterAll(async () => {
  keyHolder.kill("SIGKILL");
  await rm(join(benchPath, ".."), { recursive: true, force: true });
});

async function attack(mode: SandboxMode, language: "node" | "python", kind: string, target: string): Promise<number> {
  const launcher = await prepareRubricLauncher(
    { benchPath, rubricCommand: language === "node" ? null : [join(benchPath, "rubric.py")], rubricPath: null },
    { sandbox: mode, networkIsolation: false },
  );
  const benchCase = await makeCase(benchPath, `attack-${language}-${kind}`);
  const request = {
    schema_version: "evalgate.rubric_request.v1",
    case: benchCase,
    harness_output: { attack: kind, target },
    context: { workspace_path: null },
  } as RubricRequest;
  const outcome = await launcher.run({ request, readablePaths: [benchCase.case_path], timeoutMs: 20_000 });
  expect(outcome.kind, JSON.stringify(outcome.process.stderr)).toBe("ok");
  return outcome.kind === "ok" ? outcome.response.score.score : Number.NaN;
}

const ATTACKS: ReadonlyArray<[string, "node" | "python", string, () => string]> = [
  ["reads another case's expected/", "node", "read", () => join(other.expected_path, "answer.txt")],
  ["reads another case's expected/", "python", "read", () => join(other.expected_path, "answer.txt")],
  ["reads a host process's environment (an API key) through /proc", "python", "environ", () => String(keyHolder.pid)],
  ["rewrites the score cache in the state directory", "python", "write", () => stateFile],
  ["signals the harness process", "node", "kill", () => String(process.pid)],
  ["signals the harness process", "python", "kill", () => String(process.pid)],
];

describe("rubric attacks", () => {
  it.each(ATTACKS)(
    "without the sandbox a %s rubric (%s) succeeds: the attack is real",
    async (_what, language, kind, target) => {
      expect(await attack("none", language, kind, target())).toBe(1);
    },
  );

  it.runIf(sandboxed).each(ATTACKS)("in the sandbox it %s (%s): fails", async (_what, language, kind, target) => {
    expect(await attack("bwrap", language, kind, target())).toBe(0);
  });

  it("node:sqlite writes files the permission model forbids: rubrics run without it, in and out of the sandbox", async () => {
    const forged = join(benchPath, "..", "state", "forged.db");
    const script = `new (require("node:sqlite").DatabaseSync)(${JSON.stringify(forged)}).exec("create table t(x)")`;
    const permitted = spawnSync(process.execPath, ["--permission", `--allow-fs-read=${benchPath}`, "-e", script], {
      encoding: "utf8",
    });
    expect(permitted.status, permitted.stderr).toBe(0);
    expect(existsSync(forged)).toBe(true);
    await rm(forged);
    for (const mode of sandboxed ? (["bwrap", "none"] as const) : (["none"] as const)) {
      expect(await attack(mode, "node", "sqlite", forged)).toBe(0);
      expect(existsSync(forged)).toBe(false);
    }
  });

  it.runIf(sandboxed)(
    "a setsid daemon a Python rubric starts does not outlive it in the sandbox (without it, it does)",
    async () => {
      const marker = join(benchPath, "..", "daemon-marker");
      const alive = async (): Promise<boolean> => {
        if (!existsSync(marker)) return false;
        const before = readFileSync(marker, "utf8");
        await new Promise((resolve) => setTimeout(resolve, 500));
        return readFileSync(marker, "utf8") !== before;
      };
      // In the sandbox the marker's directory is not even visible: the daemon cannot write it, and dies with the sandbox.
      expect(await attack("bwrap", "python", "daemon", marker)).toBe(1);
      expect(await alive()).toBe(false);
      expect(await attack("none", "python", "daemon", marker)).toBe(1);
      expect(await alive()).toBe(true);
      // Stop the escaped daemon: it is in its own session, found by its command line.
      const { readdirSync } = await import("node:fs");
      for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
        try {
          if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(join(benchPath, "rubric.py")))
            process.kill(Number(pid), "SIGKILL");
        } catch {
          // gone meanwhile
        }
      }
    },
  );

  it.runIf(sandboxed)(
    "cannot read another task class's answers through a dependency on that bench's package (red-team finding)",
    async () => {
      // A bench that depends on another bench's package: its node_modules links that bench's directory.
      const otherBench = join(benchPath, "..", "other-bench");
      mkdirSync(join(otherBench, "cases", "x", "expected"), { recursive: true });
      writeFileSync(join(otherBench, "package.json"), JSON.stringify({ name: "@eval-bench/other", type: "module" }));
      writeFileSync(join(otherBench, "registration.ts"), "export default {};\n");
      writeFileSync(join(otherBench, "cases", "x", "expected", "answer.txt"), "the other bench's answer");
      mkdirSync(join(benchPath, "node_modules", "@eval-bench"), { recursive: true });
      symlinkSync(otherBench, join(benchPath, "node_modules", "@eval-bench", "other"));
      const target = join(otherBench, "cases", "x", "expected", "answer.txt");
      expect(await attack("none", "node", "read", target)).toBe(1);
      expect(await attack("bwrap", "node", "read", target)).toBe(0);
    },
  );

  const asRoot = process.getuid?.() === 0;
  it.runIf(asRoot)(
    "run by root, a rubric_command opens /proc/sys/kernel/core_uses_pid for writing without the sandbox; in it, it cannot",
    async () => {
      expect(await attack("none", "python", "sysctl", "")).toBe(1);
      if (sandboxed) expect(await attack("bwrap", "python", "sysctl", "")).toBe(0);
    },
  );

  it.runIf(asRoot)(
    "run by root, a rubric_command is host uid 0 without the sandbox and an unprivileged host uid in it (seen from the host)",
    async () => {
      for (const mode of sandboxed ? (["none", "bwrap"] as const) : (["none"] as const)) {
        const comm = `rubuid${mode}${process.pid % 1000}`;
        const scoring = attack(mode, "python", "comm", comm);
        const uids = await hostUidsOf(comm);
        await scoring;
        if (mode === "none") expect(uids).toEqual([0, 0, 0, 0]);
        else expect(uids?.every((uid) => uid !== 0)).toBe(true);
      }
    },
    60_000,
  );

  it.runIf(sandboxed)("records the sandbox as the rubric's isolation class", async () => {
    expect((await prepareRubricLauncher({ benchPath, rubricCommand: null, rubricPath: null })).isolationClass).toBe(
      "bwrap-permission",
    );
    expect(
      (await prepareRubricLauncher({ benchPath, rubricCommand: [join(benchPath, "rubric.py")], rubricPath: null }))
        .isolationClass,
    ).toBe("bwrap");
  });
});
