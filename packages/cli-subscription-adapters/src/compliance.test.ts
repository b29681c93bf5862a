import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ComplianceReportSchema, ComplianceTrialSchema } from "@eval/models";
import { BENIGN_TASKS, readComplianceReport, runComplianceCheck, suiteSha256, verifyRecentCompliance } from "./compliance.ts";
import { createFakeCli } from "./fake-cli.test-helpers.ts";

describe("the compliance gate's benign suite", () => {
  it("has 20 distinct benign tasks and a stable digest", () => {
    expect(BENIGN_TASKS).toHaveLength(20);
    expect(new Set(BENIGN_TASKS.map((task) => task.id)).size).toBe(20);
    expect(suiteSha256()).toBe(suiteSha256(BENIGN_TASKS));
    expect(suiteSha256(BENIGN_TASKS.slice(1))).not.toBe(suiteSha256());
  });

  it("runs all 20 tasks live against a working CLI and writes a passing JSONL report the gate accepts", async () => {
    const fake = createFakeCli("gemini", { version: "0.61.0", steps: [{ stdout: "file:gemini-success.stdout.jsonl" }] });
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
    expect(result.report).toMatchObject({ adapter: "gemini", cli_version: "0.61.0", task_count: 20, ran_count: 20, parse_success_count: 20, pass_rate: 1, passed: true });
    expect(result.reportPath.startsWith(join(stateDir, "compliance"))).toBe(true);
    const lines = readFileSync(result.reportPath, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as unknown);
    expect(lines).toHaveLength(21);
    for (const line of lines.slice(0, 20)) ComplianceTrialSchema.parse(line);
    ComplianceReportSchema.parse(lines[20]);
    expect(readComplianceReport(result.reportPath)).toEqual(result.report);
    // The files each task declares reached the CLI's scratch directory, and each prompt was given.
    const prompts = fake.invocations().map((invocation) => invocation.args[invocation.args.indexOf("--prompt") + 1]);
    expect(prompts).toEqual(BENIGN_TASKS.map((task) => task.prompt));
    expect(verifyRecentCompliance({ complianceDir: join(stateDir, "compliance"), adapter: "gemini", binaryPath: fake.binaryPath, cliVersion: "0.61.0" }).reportPath).toBe(result.reportPath);
  }, 60_000);

  it("a logged-out CLI fails the gate after one trial; the rest are recorded as not run", async () => {
    const fake = createFakeCli("claude", { version: "2.1.330 (Claude Code)", steps: [{ stdout: "file:claude-noauth.stdout.jsonl", exit: 1 }] });
    const stateDir = mkdtempSync(join(tmpdir(), "evalgate-state-"));
    const result = await runComplianceCheck({ adapter: "claude-code", stateDir, binaryPath: fake.binaryPath, env: { PATH: process.env.PATH } });
    expect(result.report).toMatchObject({ ran_count: 1, parse_success_count: 0, pass_rate: 0, passed: false });
    expect(result.report.trial_class_counts.cli_error).toBe(1);
    expect(result.trials[0]!.classification).toMatchObject({ cli_error_kind: "auth_failure" });
    expect(result.trials.slice(1).every((trial) => !trial.ran && trial.classification === null)).toBe(true);
    expect(fake.invocations()).toHaveLength(1);
    expect(readdirSync(join(stateDir, "compliance"))).toHaveLength(1);
    expect(() =>
      verifyRecentCompliance({ complianceDir: join(stateDir, "compliance"), adapter: "claude-code", binaryPath: fake.binaryPath, cliVersion: "2.1.330" }),
    ).toThrow(/passed 0\.0% of benign tasks/);
  });

  it("with stopAfterAuthFailure false every task runs", async () => {
    const fake = createFakeCli("gemini", { version: "0.61.0", steps: [{ stderr: "file:gemini-noauth.stderr.txt", exit: 41 }] });
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
