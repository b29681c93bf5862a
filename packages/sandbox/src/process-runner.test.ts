// runProcess against processes that misbehave: missing binaries, floods on stdout and stderr, SIGTERM
// ignored, children left behind, an abort. Real processes, no sandbox unless a test says so.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSupport } from "./bwrap.ts";
import { killAllProcessGroups, liveProcessGroups, processGroupAlive, runProcess } from "./process-runner.ts";
import type { ProcessSpec } from "./process-runner.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "process-runner-test-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sh = (script: string, extra: Partial<ProcessSpec> = {}) =>
  runProcess({
    command: "/bin/sh",
    args: ["-c", script],
    cwd: dir,
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 20_000,
    graceMs: 500,
    ...extra,
  });

describe("runProcess", () => {
  it("a binary that does not exist: a spawn error, no group, never a rejection", async () => {
    const outcome = await runProcess({
      command: join(dir, "no-such-binary"),
      args: [],
      cwd: dir,
      env: {},
      timeoutMs: 5_000,
    });
    expect(outcome.spawnError).toMatch(/ENOENT/);
    expect(outcome.pgid).toBeNull();
    expect(outcome.exitCode).toBeNull();
  });

  it("stdout past its cap: kept up to the cap, the group stopped, SIGKILL when SIGTERM is ignored", async () => {
    const outcome = await sh("trap '' TERM; while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done", {
      stdoutCapBytes: 64 * 1024,
    });
    expect(outcome.stdoutCapped).toBe(true);
    expect(outcome.stopReason).toBe("stdout_cap");
    expect(outcome.stdout.length).toBe(64 * 1024);
    expect(outcome.stdoutBytes).toBeGreaterThan(64 * 1024);
    expect(outcome.killed).toBe(true);
  });

  it("stderr past its cap: stops the group, keeps only the first bytes asked for", async () => {
    const outcome = await sh("while :; do echo eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee >&2; done", {
      stderrCapBytes: 32 * 1024,
      stderrKeepBytes: 100,
    });
    expect(outcome.stderrCapped).toBe(true);
    expect(outcome.stderr.length).toBe(100);
    expect(outcome.stderrBytes).toBeGreaterThan(32 * 1024);
  });

  it("a line that says the session is over: the group is stopped after the linger time", async () => {
    const seen: string[] = [];
    const outcome = await sh("echo first; echo done; sleep 30", {
      lingerAfterTerminalMs: 200,
      onStdoutLine: (line) => (seen.push(line), line === "done"),
    });
    expect(seen).toEqual(["first", "done"]);
    expect(outcome.stopReason).toBe("after_terminal");
    expect(outcome.durationMs).toBeLessThan(15_000);
  });

  it("the last line without a newline still reaches the line reader", async () => {
    const seen: string[] = [];
    await sh("printf 'a\\nb'", { onStdoutLine: (line) => (seen.push(line), false) });
    expect(seen).toEqual(["a", "b"]);
  });

  it("a leader that exits leaving a child in its group: the child is stopped, not waited for", async () => {
    const outcome = await sh("sleep 30 & echo started", { timeoutMs: 60_000 });
    expect(outcome.stopReason).toBe("leader_exited");
    expect(outcome.exitCode).toBe(0);
    expect(processGroupAlive(outcome.pgid!)).toBe(false);
  });

  it("an abort signal, before the start or during the run, stops the group", async () => {
    const before = new AbortController();
    before.abort();
    expect((await sh("sleep 30", { signal: before.signal })).aborted).toBe(true);
    const during = new AbortController();
    setTimeout(() => during.abort(), 200);
    const outcome = await sh("sleep 30", { signal: during.signal });
    expect(outcome.aborted).toBe(true);
    expect(outcome.stopReason).toBe("aborted");
  });

  it("lists the groups in flight and kills them all on demand (an interrupted harness)", async () => {
    const running = sh("sleep 30");
    await expect.poll(() => liveProcessGroups().length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(killAllProcessGroups()).toBeGreaterThan(0);
    const outcome = await running;
    expect(outcome.exitSignal).toBe("SIGKILL");
    expect(liveProcessGroups()).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0 && sandboxSupport().available)(
    "as root, a writable path the sandbox cannot be handed (a tree past the walk's depth) fails to start, saying why",
    async () => {
      const writable = join(dir, "too-deep");
      mkdirSync(join(writable, ...Array.from({ length: 70 }, () => "d")), { recursive: true });
      const outcome = await runProcess({
        command: "/bin/true",
        args: [],
        cwd: dir,
        env: {},
        timeoutMs: 5_000,
        sandbox: { writable: [writable] },
      });
      expect(outcome.spawnError).toMatch(/^cannot hand the sandbox its writable paths: deeper than 64 levels/);
      expect(outcome.pgid).toBeNull();
    },
  );
});
