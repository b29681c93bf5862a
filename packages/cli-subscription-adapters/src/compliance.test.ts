import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ComplianceReportSchema, ComplianceTrialSchema } from "@eval/models";
import { readComplianceReport, runComplianceCheck, verifyRecentCompliance } from "./compliance.ts";
import { BENIGN_TASKS, checkEffects, matchesExpected, solutionOf, suiteSha256 } from "./compliance-tasks.ts";
import { doesBenignTasks } from "./compliance.test-helpers.ts";
import { createFakeCli } from "./fake-cli.test-helpers.ts";

describe("the compliance gate's benign suite", () => {
  it("has 20 distinct benign tasks and a stable digest", () => {
    expect(BENIGN_TASKS).toHaveLength(20);
    expect(new Set(BENIGN_TASKS.map((task) => task.id)).size).toBe(20);
    expect(suiteSha256()).toBe(suiteSha256(BENIGN_TASKS));
    expect(suiteSha256(BENIGN_TASKS.slice(1))).not.toBe(suiteSha256());
  });

  it("runs all 20 tasks live against a CLI that does them and writes a passing JSONL report the gate accepts", async () => {
    const fake = createFakeCli("gemini", {
      version: "0.61.0",
      steps: [doesBenignTasks(), { stdout: "file:gemini-success.stdout.jsonl" }],
    });
    const stateDir = mkdtempSync(join(tmpdir(), "evalgate-state-"));
    const seen: number[] = [];
    const result = await runComplianceCheck({
      adapter: "gemini",
      stateDir,
      binaryPath: fake.binaryPath,
      env: { PATH: process.env.PATH },
      onTrial: (_trial, index) => seen.push(index),
    });
    expect(seen).toHaveLength(20);
    expect(result.report).toMatchObject({
      adapter: "gemini",
      cli_version: "0.61.0",
      task_count: 20,
      ran_count: 20,
      parse_success_count: 20,
      effects_met_count: 20,
      passed_count: 20,
      pass_rate: 1,
      passed: true,
    });
    expect(result.report.endpoint).toEqual({
      origin: "https://generativelanguage.googleapis.com",
      scenario_sha256: null,
    });
    expect(result.report.cli_binary_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(result.trials.every((trial) => trial.passed && trial.effects?.met === true)).toBe(true);
    expect(result.reportPath.startsWith(join(stateDir, "compliance"))).toBe(true);
    const lines = readFileSync(result.reportPath, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toHaveLength(21);
    for (const line of lines.slice(0, 20)) ComplianceTrialSchema.parse(line);
    ComplianceReportSchema.parse(lines[20]);
    expect(readComplianceReport(result.reportPath)).toEqual(result.report);
    // The files each task declares reached the CLI's scratch directory, and each prompt was given.
    const prompts = fake.invocations().map((invocation) => invocation.args[invocation.args.indexOf("--prompt") + 1]);
    expect(prompts).toEqual(BENIGN_TASKS.map((task) => task.prompt));
    const lookup = {
      complianceDir: join(stateDir, "compliance"),
      adapter: "gemini" as const,
      binaryPath: fake.binaryPath,
      cliVersion: "0.61.0",
    };
    expect(
      verifyRecentCompliance({ ...lookup, endpointOrigin: "https://generativelanguage.googleapis.com" }).reportPath,
    ).toBe(result.reportPath);
    // Earned against the provider's API: it admits no run against another endpoint.
    expect(() => verifyRecentCompliance({ ...lookup, endpointOrigin: "http://127.0.0.1:8787" })).toThrow(
      /no report .* endpoint \(http:\/\/127\.0\.0\.1:8787\)/,
    );
  }, 60_000);

  it("attack: a CLI that exits 0 with a clean success stream but does nothing fails every task, and the gate refuses it", async () => {
    const fake = createFakeCli("gemini", {
      version: "0.61.0",
      steps: [{ stdout: "file:gemini-success.stdout.jsonl" }],
    });
    const stateDir = mkdtempSync(join(tmpdir(), "evalgate-state-"));
    const result = await runComplianceCheck({
      adapter: "gemini",
      stateDir,
      binaryPath: fake.binaryPath,
      env: { PATH: process.env.PATH },
    });
    expect(result.report).toMatchObject({
      ran_count: 20,
      parse_success_count: 20,
      effects_met_count: 0,
      passed_count: 0,
      pass_rate: 0,
      passed: false,
    });
    expect(result.trials.every((trial) => trial.exit_code === 0 && !trial.passed)).toBe(true);
    expect(result.trials.find((trial) => trial.task_id === "fix-typo")!.effects!.unmet).toEqual([
      'greeting.txt holds "helo world", expected "hello world"',
    ]);
    expect(result.trials.find((trial) => trial.task_id === "create-file")!.effects!.unmet).toEqual([
      "done.txt is missing",
    ]);
    expect(() =>
      verifyRecentCompliance({
        complianceDir: join(stateDir, "compliance"),
        adapter: "gemini",
        binaryPath: fake.binaryPath,
        cliVersion: "0.61.0",
        endpointOrigin: "https://generativelanguage.googleapis.com",
      }),
    ).toThrow(/passed 0\.0% of benign tasks; .*classified: 20 did not do the task/);
  }, 60_000);

  it("a task done only in part fails: wrong content, a symlink instead of the file, a file clobbered that had to stay", async () => {
    const wrong: { match: string; files: Record<string, string> }[] = [
      { match: BENIGN_TASKS.find((task) => task.id === "add-numbers")!.prompt, files: { "answer.txt": "41\n" } },
      {
        match: BENIGN_TASKS.find((task) => task.id === "read-note")!.prompt,
        files: { "answer.txt": "the quick brown fox\n", "note.txt": "" },
      },
    ];
    const fake = createFakeCli("gemini", {
      version: "0.61.0",
      steps: [
        { writeByPrompt: wrong },
        { shell: "ln -s /etc/hostname done.txt 2>/dev/null; true" },
        { stdout: "file:gemini-success.stdout.jsonl" },
      ],
    });
    const tasks = BENIGN_TASKS.filter((task) => ["add-numbers", "read-note", "create-file"].includes(task.id));
    const result = await runComplianceCheck({
      adapter: "gemini",
      stateDir: mkdtempSync(join(tmpdir(), "evalgate-state-")),
      binaryPath: fake.binaryPath,
      env: { PATH: process.env.PATH },
      tasks,
    });
    expect(result.trials.map((trial) => trial.effects!.unmet)).toEqual([
      ['answer.txt holds "41", expected "42"'],
      ['note.txt holds "", expected "the quick brown fox\\nsecond line"'],
      // The symlink the CLI made is never copied back from its scratch directory.
      ["done.txt is missing"],
    ]);
    expect(result.report.passed_count).toBe(0);
  }, 60_000);

  it("checkEffects reads only a regular file of bounded size: a symlink, a directory or an oversized file is not the effect", () => {
    const task = BENIGN_TASKS.find((entry) => entry.id === "create-file")!;
    const root = mkdtempSync(join(tmpdir(), "evalgate-benign-"));
    writeFileSync(join(root, "target.txt"), "done\n");
    symlinkSync(join(root, "target.txt"), join(root, "done.txt"));
    expect(checkEffects(root, task).unmet).toEqual(["done.txt is a symbolic link"]);
    rmSync(join(root, "done.txt"));
    mkdirSync(join(root, "done.txt"));
    expect(checkEffects(root, task).unmet).toEqual(["done.txt is not a regular file"]);
    rmSync(join(root, "done.txt"), { recursive: true });
    writeFileSync(join(root, "done.txt"), "done\n".repeat(20_000));
    expect(checkEffects(root, task).unmet).toEqual(["done.txt is over 65536 bytes"]);
    chmodSync(root, 0o000);
    try {
      // Root reads through any mode; an ordinary user gets EACCES (either way, not the effect unless it is there).
      expect(checkEffects(root, task).met).toBe(false);
    } finally {
      chmodSync(root, 0o755);
    }
  });

  it("every expected file's example is what it expects, and each task's solution passes its own check", () => {
    for (const task of BENIGN_TASKS) {
      const root = mkdtempSync(join(tmpdir(), "evalgate-benign-"));
      for (const [name, content] of Object.entries(solutionOf(task))) writeFileSync(join(root, name), content);
      expect(checkEffects(root, task), task.id).toEqual({ met: true, unmet: [] });
    }
    const python = BENIGN_TASKS.find((task) => task.id === "python-function")!.expect[0]!;
    expect(matchesExpected(python, "def inc(x):\n    return x + 1\n\ndef double(x):\n    return 2*x\n")).toBe(true);
    expect(matchesExpected(python, "def double(x):\n    return x * 2\n")).toBe(false);
    const translate = BENIGN_TASKS.find((task) => task.id === "translate")!.expect[0]!;
    expect(matchesExpected(translate, "¡Buenos días!\r\n")).toBe(true);
    expect(matchesExpected(translate, "Buenas noches")).toBe(false);
  });

  it("a logged-out CLI fails the gate after one trial; the rest are recorded as not run", async () => {
    const fake = createFakeCli("claude", {
      version: "2.1.330 (Claude Code)",
      steps: [{ stdout: "file:claude-noauth.stdout.jsonl", exit: 1 }],
    });
    const stateDir = mkdtempSync(join(tmpdir(), "evalgate-state-"));
    const result = await runComplianceCheck({
      adapter: "claude-code",
      stateDir,
      binaryPath: fake.binaryPath,
      env: { PATH: process.env.PATH },
    });
    expect(result.report).toMatchObject({ ran_count: 1, parse_success_count: 0, pass_rate: 0, passed: false });
    expect(result.report.trial_class_counts.cli_error).toBe(1);
    expect(result.trials[0]!.classification).toMatchObject({ cli_error_kind: "auth_failure" });
    expect(result.trials.slice(1).every((trial) => !trial.ran && trial.classification === null)).toBe(true);
    expect(fake.invocations()).toHaveLength(1);
    expect(readdirSync(join(stateDir, "compliance"))).toHaveLength(1);
    expect(() =>
      verifyRecentCompliance({
        complianceDir: join(stateDir, "compliance"),
        adapter: "claude-code",
        binaryPath: fake.binaryPath,
        cliVersion: "2.1.330",
        endpointOrigin: "https://api.anthropic.com",
      }),
    ).toThrow(/passed 0\.0% of benign tasks/);
  });

  it("with stopAfterAuthFailure false every task runs", async () => {
    const fake = createFakeCli("gemini", {
      version: "0.61.0",
      steps: [{ stderr: "file:gemini-noauth.stderr.txt", exit: 41 }],
    });
    const stateDir = mkdtempSync(join(tmpdir(), "evalgate-state-"));
    const result = await runComplianceCheck({
      adapter: "gemini",
      stateDir,
      binaryPath: fake.binaryPath,
      env: { PATH: process.env.PATH },
      stopAfterAuthFailure: false,
      tasks: BENIGN_TASKS.slice(0, 3),
      timeoutMsPerTask: 10_000,
    });
    expect(result.report).toMatchObject({ task_count: 3, ran_count: 3, passed: false });
    expect(readComplianceReport(join(stateDir, "nope.jsonl"))).toBeNull();
  });
});
