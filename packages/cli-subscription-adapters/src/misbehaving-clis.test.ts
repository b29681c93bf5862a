import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentAdapterName } from "@eval/models";
import { ADAPTERS } from "./adapter-registry.ts";
import { createFakeCli, pidAlive } from "./fake-cli.test-helpers.ts";
import type { FakeScenario } from "./fake-cli.test-helpers.ts";
import { executeTrial } from "./trial.ts";
import type { TrialLimits } from "./trial.ts";

const VERSIONS: Record<AgentAdapterName, string> = {
  "claude-code": "2.1.330 (Claude Code)",
  codex: "codex-cli 0.169.0",
  gemini: "0.61.0",
  pi: "0.73.1",
};
const BINARIES: Record<AgentAdapterName, string> = {
  "claude-code": "claude",
  codex: "codex",
  gemini: "gemini",
  pi: "pi",
};
/** Slack for process start-up and polling on a loaded 2-core machine. */
const SLACK_MS = 2_500;

async function trial(adapterName: AgentAdapterName, scenario: Omit<FakeScenario, "version">, limits: TrialLimits) {
  const fake = createFakeCli(BINARIES[adapterName], { version: VERSIONS[adapterName], ...scenario });
  const root = mkdtempSync(join(tmpdir(), "evalgate-ws-"));
  writeFileSync(join(root, "note.txt"), "hello\n");
  const started = Date.now();
  const run = await executeTrial({
    adapter: ADAPTERS[adapterName],
    binaryPath: fake.binaryPath,
    cliVersion: "1.0.0",
    prompt: "Reply with the single word: hello",
    workspace: { root, editable: ["."], readonly: [] },
    env: { PATH: process.env.PATH ?? "" },
    limits,
  });
  const elapsed = Date.now() - started;
  return { run, fake, elapsed, root };
}

/** The CLI's whole process group is gone: `kill(-pgid, 0)` fails with ESRCH. */
function expectGroupGone(pgid: number | null): void {
  expect(pgid).not.toBeNull();
  let code: string | undefined;
  try {
    process.kill(-pgid!, 0);
  } catch (error) {
    code = (error as NodeJS.ErrnoException).code;
  }
  expect(code).toBe("ESRCH");
}

describe("misbehaving CLIs end classified, within deadline + grace, with no process left", () => {
  it("parent ignores SIGTERM while its child keeps running (as Gemini does): SIGKILL to the group after the 5 s grace", async () => {
    const { run, fake, elapsed } = await trial(
      "gemini",
      {
        steps: [
          { ignoreSignals: true, spawnChild: true, stdout: "file:gemini-fakekey-nonetwork.stdout.jsonl", hang: true },
        ],
      },
      { timeoutMs: 1_500 },
    );
    expect(run.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "timeout" });
    expect(run.outcome.timedOut).toBe(true);
    expect(run.outcome.killed).toBe(true);
    expectGroupGone(run.outcome.pgid);
    expect(pidAlive(fake.childPid()!)).toBe(false);
    expect(elapsed).toBeGreaterThanOrEqual(1_500 + 5_000 - 100);
    expect(elapsed).toBeLessThan(1_500 + 5_000 + SLACK_MS);
  }, 20_000);

  it("hangs after the result event: the session counts, the group is stopped shortly after", async () => {
    const { run, elapsed } = await trial(
      "claude-code",
      { steps: [{ stdout: "file:claude-success.stdout.jsonl", hang: true }] },
      { timeoutMs: 30_000, lingerAfterTerminalMs: 300, graceMs: 1_000 },
    );
    expect(run.classification.trial_class).toBe("parse_success");
    expect(run.outcome.stopReason).toBe("after_terminal");
    expect(run.outcome.timedOut).toBe(false);
    expectGroupGone(run.outcome.pgid);
    expect(elapsed).toBeLessThan(300 + 1_000 + SLACK_MS);
  });

  it("prints nothing for minutes: the deadline timer fires without any output to wake a read loop", async () => {
    const { run, elapsed } = await trial(
      "claude-code",
      { steps: [{ sleepMs: 180_000 }] },
      { timeoutMs: 1_000, graceMs: 1_000 },
    );
    expect(run.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "timeout" });
    expect(run.outcome.stdoutBytes).toBe(0);
    expectGroupGone(run.outcome.pgid);
    expect(elapsed).toBeLessThan(1_000 + 1_000 + SLACK_MS);
  });

  it("floods stdout: killed at the cap, partial output kept, classified stdout_cap", async () => {
    const cap = 256 * 1024;
    const { run, elapsed } = await trial(
      "codex",
      { steps: [{ stdout: '{"type":"thread.started","thread_id":"t"}\n', flood: true }] },
      { timeoutMs: 20_000, graceMs: 1_000, stdoutCapBytes: cap },
    );
    expect(run.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "stdout_cap" });
    expect(run.outcome.stdoutCapped).toBe(true);
    expect(run.outcome.stdout.length).toBe(cap);
    expect(run.outcome.stdout.subarray(0, 20).toString()).toBe('{"type":"thread.star');
    expect(run.outcome.stdoutBytes).toBeGreaterThan(cap);
    expectGroupGone(run.outcome.pgid);
    expect(elapsed).toBeLessThan(1_000 + SLACK_MS * 2);
  });

  it("splits JSON lines across writes: reassembled, parse_success", async () => {
    const { run } = await trial(
      "codex",
      { steps: [{ split: "file:codex-success.stdout.jsonl", chunk: 7, delayMs: 1 }] },
      { timeoutMs: 20_000, graceMs: 1_000 },
    );
    expect(run.classification.trial_class).toBe("parse_success");
    expect(run.facts.nonJsonLines).toBe(0);
    expect(run.transcript.tool_calls.length).toBeGreaterThan(0);
    expectGroupGone(run.outcome.pgid);
  });

  it("emits unknown event types: format_drift naming them", async () => {
    const { run } = await trial(
      "gemini",
      {
        steps: [
          { stdout: '{"type":"init","session_id":"s","model":"auto"}\n{"type":"thought_bubble","text":"hmm"}\n' },
          { stdout: '{"type":"result","status":"success","stats":{}}\n' },
        ],
      },
      { timeoutMs: 20_000, graceMs: 1_000 },
    );
    expect(run.classification.trial_class).toBe("format_drift");
    expect(run.classification.reason).toMatch(/thought_bubble/);
    expectGroupGone(run.outcome.pgid);
  });

  it("Codex without network or login: the login check stops the retrying session early, named auth_failure", async () => {
    const { run, elapsed } = await trial(
      "codex",
      {
        authStatus: {
          args: "login status",
          stderr: "file:codex-login-status-loggedout.stderr.txt",
          code: 1,
          delayMs: 200,
        },
        steps: [
          {
            stdout: "file:codex-nonetwork.stdout.jsonl",
            stderr: "Reading additional input from stdin...\n",
            hang: true,
          },
        ],
      },
      { timeoutMs: 15_000, graceMs: 1_000 },
    );
    expect(run.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "auth_failure" });
    expect(run.authStatus).toBe("logged_out");
    expectGroupGone(run.outcome.pgid);
    expect(elapsed).toBeLessThan(5_000);
  });

  it("a Codex session that succeeds does not wait for a slow login check", async () => {
    const { run, elapsed } = await trial(
      "codex",
      {
        authStatus: { args: "login status", stdout: "Logged in using ChatGPT\n", delayMs: 10_000 },
        steps: [{ stdout: "file:codex-success.stdout.jsonl" }],
      },
      { timeoutMs: 20_000, graceMs: 1_000 },
    );
    expect(run.classification.trial_class).toBe("parse_success");
    expect(run.authStatus).toBe("unknown");
    expect(elapsed).toBeLessThan(1_000 + SLACK_MS * 2);
  });

  it("Codex prompt goes on stdin, not argv", async () => {
    const { fake } = await trial(
      "codex",
      { steps: [{ stdout: "file:codex-success.stdout.jsonl" }] },
      { timeoutMs: 20_000, graceMs: 1_000 },
    );
    const invocation = fake.invocations().find((entry) => entry.args[0] === "exec");
    expect(invocation!.stdin).toBe("Reply with the single word: hello");
    expect(invocation!.args).not.toContain("Reply with the single word: hello");
    expect(invocation!.args.slice(0, 2)).toEqual(["exec", "--json"]);
  });

  it("Claude without login (real stream, exit 1) and Gemini without auth (empty stdout, exit 41) are auth failures", async () => {
    const claude = await trial(
      "claude-code",
      { steps: [{ stdout: "file:claude-noauth.stdout.jsonl", exit: 1 }] },
      { timeoutMs: 20_000 },
    );
    expect(claude.run.classification.cli_error_kind).toBe("auth_failure");
    const gemini = await trial(
      "gemini",
      { steps: [{ stderr: "file:gemini-noauth.stderr.txt", exit: 41 }] },
      { timeoutMs: 20_000 },
    );
    expect(gemini.run.classification.cli_error_kind).toBe("auth_failure");
    expect(gemini.run.outcome.stdoutBytes).toBe(0);
    expectGroupGone(claude.run.outcome.pgid);
    expectGroupGone(gemini.run.outcome.pgid);
  });

  it("a leader that exits leaving a child behind: the child is stopped too", async () => {
    const { run, fake } = await trial(
      "gemini",
      { steps: [{ spawnChild: true, stdout: "file:gemini-success.stdout.jsonl", exit: 0 }] },
      { timeoutMs: 20_000, graceMs: 1_000 },
    );
    expect(run.classification.trial_class).toBe("parse_success");
    expectGroupGone(run.outcome.pgid);
    expect(pidAlive(fake.childPid()!)).toBe(false);
  });

  it("cancellation through the signal stops the group: cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const { run, elapsed } = await trial(
      "claude-code",
      { steps: [{ stdout: "file:claude-fakekey-api-retry.stdout.jsonl", hang: true }] },
      { timeoutMs: 30_000, graceMs: 1_000, signal: controller.signal },
    );
    expect(run.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "cancelled" });
    expectGroupGone(run.outcome.pgid);
    expect(elapsed).toBeLessThan(500 + 1_000 + SLACK_MS);
  });

  it("control: the group check sees a group that is still alive (so the assertions above can fail)", async () => {
    const { spawn } = await import("node:child_process");
    const leader = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" });
    await new Promise((resolve) => leader.once("spawn", resolve));
    expect(() => process.kill(-leader.pid!, 0)).not.toThrow();
    process.kill(-leader.pid!, "SIGKILL");
    await new Promise((resolve) => leader.once("exit", resolve));
    expectGroupGone(leader.pid!);
  });

  it("a binary that cannot start is spawn_failed, not a crash", async () => {
    const root = mkdtempSync(join(tmpdir(), "evalgate-ws-"));
    const run = await executeTrial({
      adapter: ADAPTERS.gemini,
      binaryPath: join(root, "does-not-exist"),
      cliVersion: "1.0.0",
      prompt: "x",
      workspace: { root, editable: ["."], readonly: [] },
      env: {},
      limits: { timeoutMs: 5_000 },
    });
    expect(run.classification.cli_error_kind).toBe("spawn_failed");
  });
});
