// The append lock left by a process that is gone: broken at once on this host, never from another host.
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { EvalWarning } from "@eval/errors";
import { appendRunRecord, readChainHead, verifyChain, withAppendLock } from "./index.ts";
import { HOST, makeReport } from "./__fixtures__/reports.ts";

const WORKER = join(import.meta.dirname, "__fixtures__", "append-worker.ts");
let dir: string;
let runsDir: string;
let lockPath: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "audit-lock-"));
  runsDir = join(dir, "runs");
  lockPath = join(runsDir, ".append.lock");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function worker(args: string[]) {
  const child = spawn(process.execPath, ["--conditions=@eval/source", WORKER, runsDir, HOST, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, nextLine: async () => String((await lines.next()).value), exit };
}

async function appendOne(runId: string, warnings: EvalWarning[], lockWaitMs = 30_000) {
  const { head } = await readChainHead(runsDir);
  return appendRunRecord(makeReport({ prev_hash: head, run_id: runId }), {
    runsDir,
    hostFingerprint: HOST,
    lockWaitMs,
    onWarning: (warning) => warnings.push(warning),
  });
}

/** A lock file as a holder writes it. */
async function plantLock(owner: Record<string, unknown>): Promise<void> {
  await withAppendLock(runsDir, async () => {}); // creates the runs directory
  await writeFile(
    lockPath,
    `${JSON.stringify({ token: "planted", started_at: "2026-01-01T00:00:00.000Z", ...owner })}\n`,
  );
}

it("a lock left by a SIGKILLed holder is broken at once, with a warning, and the append lands", async () => {
  await appendOne("first", []);
  const holder = worker(["holder", "hold"]);
  expect(await holder.nextLine()).toBe("held");
  holder.child.kill("SIGKILL");
  await holder.exit;
  expect(await readdir(runsDir)).toContain(".append.lock");
  const warnings: EvalWarning[] = [];
  const start = Date.now();
  await appendOne("after-kill", warnings);
  // The old lock waited out its 10 s stale threshold; a dead pid is known at once (4 s leaves room for load).
  expect(Date.now() - start).toBeLessThan(4_000);
  expect(warnings.map((warning) => warning.code)).toEqual(["chain.stale_lock_broken"]);
  expect(warnings[0]!.message).toContain(`pid ${holder.child.pid}`);
  expect(await verifyChain({ runsDir, strict: true })).toMatchObject({ ok: true, records: 2 });
  expect(await readdir(runsDir)).not.toContain(".append.lock");
}, 60_000);

it("a lock whose pid now belongs to another process (start time differs) is broken at once", async () => {
  // This very process is alive under that pid, but it did not start at tick 1: the holder is gone.
  await plantLock({ pid: process.pid, host: hostname(), proc_start: "1" });
  const warnings: EvalWarning[] = [];
  const start = Date.now();
  await appendOne("reused", warnings);
  expect(Date.now() - start).toBeLessThan(4_000);
  expect(warnings.map((warning) => warning.code)).toEqual(["chain.stale_lock_broken"]);
});

it("a live holder on this host is waited for, never broken", async () => {
  const holder = worker(["holder", "hold"]);
  try {
    expect(await holder.nextLine()).toBe("held");
    const warnings: EvalWarning[] = [];
    await expect(appendOne("blocked", warnings, 1_500)).rejects.toThrow(
      new RegExp(`stayed locked by another append \\(pid ${holder.child.pid} on host`),
    );
    expect(warnings).toEqual([]);
  } finally {
    holder.child.kill("SIGKILL");
    await holder.exit;
  }
}, 60_000);

it("a holder on another host is never broken automatically, however old, and the message says how to break it", async () => {
  await plantLock({ pid: 1234, host: "build-07.example", proc_start: "99" });
  const old = new Date(Date.now() - 3_600_000);
  await utimes(lockPath, old, old);
  const attempt = appendOne("foreign", [], 1_500);
  await expect(attempt).rejects.toMatchObject({ code: "EVAL_CHAIN_CONFLICT" });
  await expect(attempt).rejects.toThrow(
    `never broken automatically: if that process is gone, remove ${lockPath} by hand`,
  );
  expect(JSON.parse(await readFile(lockPath, "utf8"))).toMatchObject({ host: "build-07.example", token: "planted" });
}, 60_000);

it("concurrent breakers of the same dead lock: exactly one breaks it, every append lands once", async () => {
  await appendOne("first", []);
  const holder = worker(["holder", "hold"]);
  expect(await holder.nextLine()).toBe("held");
  const count = 6;
  const appenders = Array.from({ length: count }, (_, index) => worker([`breaker-${index}`, "once"]));
  expect(await Promise.all(appenders.map((appender) => appender.nextLine()))).toEqual(Array(count).fill("ready"));
  holder.child.kill("SIGKILL");
  await holder.exit;
  for (const appender of appenders) appender.child.stdin!.write("go\n");
  const outcomes = (await Promise.all(appenders.map((appender) => appender.nextLine()))).map(
    (line) => JSON.parse(line) as { label: string; broken: string[] },
  );
  expect(await Promise.all(appenders.map((appender) => appender.exit))).toEqual(Array(count).fill(0));
  expect(outcomes.flatMap((outcome) => outcome.broken)).toEqual(["chain.stale_lock_broken"]);
  const result = await verifyChain({ runsDir, strict: true });
  expect(result).toMatchObject({ ok: true, records: count + 1 });
  const names = (await readdir(runsDir)).filter((name) => name.endsWith(".json"));
  const runIds = await Promise.all(
    names.map(async (name) => JSON.parse(await readFile(join(runsDir, name), "utf8")).report.run_id as string),
  );
  expect(runIds.sort()).toEqual(["first", ...appenders.map((_, index) => `breaker-${index}`)].sort());
}, 120_000);

it("a holder that loses its lock to a breaker finds out before it writes", async () => {
  await expect(
    withAppendLock(runsDir, async (lock) => {
      await rm(lockPath);
      lock.assertHeld();
    }),
  ).rejects.toThrow(/lost the audit-chain lock/);
});
