// Real processes appending through the public API: 8 concurrent appenders, and SIGKILL mid-append.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, expect, it } from "vitest";
import { appendRunRecord, readChainHead, verifyChain } from "./index.ts";
import { HOST, makeReport, seededRandom } from "./__fixtures__/reports.ts";

const WORKER = join(import.meta.dirname, "__fixtures__", "append-worker.ts");
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "audit-proc-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function startWorker(args: string[]): {
  child: ChildProcess;
  lines: string[];
  nextLine: () => Promise<string>;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, ["--conditions=@eval/source", WORKER, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      if (code !== 0 && code !== null) console.error(stderr);
      resolve(code);
    }),
  );
  const nextLine = () =>
    lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise<string>((resolve) => waiters.push(resolve));
  return { child, lines, nextLine, exit };
}

it("20 concurrent appending processes all land: 20 records, one linear chain, no conflict, nothing lost", async () => {
  const runsDir = join(dir, "runs");
  const count = 20;
  const workers = Array.from({ length: count }, (_, index) => startWorker([runsDir, HOST, `worker-${index}`, "once"]));
  // Every worker has read the (empty) head before any appends: each one's prev_hash is stale but the genesis one.
  expect(await Promise.all(workers.map((worker) => worker.nextLine()))).toEqual(Array(count).fill("ready"));
  for (const worker of workers) worker.child.stdin!.write("go\n");
  const outcomes = (await Promise.all(workers.map((worker) => worker.nextLine()))).map(
    (line) => JSON.parse(line) as { label: string; chain_hash: string; conflicts: string[] },
  );
  expect(await Promise.all(workers.map((worker) => worker.exit))).toEqual(Array(count).fill(0));

  const result = await verifyChain({ runsDir, strict: true });
  expect(result).toMatchObject({ ok: true, records: count, complete: count });
  const records = await Promise.all(
    (await readdir(runsDir))
      .filter((name) => name.endsWith(".json"))
      .map(async (name) => JSON.parse(await readFile(join(runsDir, name), "utf8"))),
  );
  // No lost and no duplicated record: each worker's run is in the chain exactly once, at the hash it was told.
  expect(records.map((record) => record.report.run_id).sort()).toEqual(
    workers.map((_, index) => `worker-${index}`).sort(),
  );
  const byLabel = new Map(records.map((record) => [record.report.run_id, record.chain_hash]));
  for (const outcome of outcomes) expect(byLabel.get(outcome.label)).toBe(outcome.chain_hash);
  expect(outcomes.flatMap((outcome) => outcome.conflicts)).toEqual([]);
}, 300_000); // 20 Node starts at once: 70-105 s at load 20 (as root and as an ordinary user alike)

it("SIGKILL at random moments during appends leaves a chain that verifies, and the next append proceeds", async () => {
  const runsDir = join(dir, "runs");
  const random = seededRandom(0xdead);
  let appended = 0;
  let locksLeft = 0;
  for (let round = 0; round < 12; round += 1) {
    const worker = startWorker([runsDir, HOST, `kill-${round}`, "loop", "2000"]);
    await worker.nextLine(); // the worker is mid-loop: appends follow each other back to back
    await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 40)));
    worker.child.kill("SIGKILL");
    await worker.exit;
    appended += 1 + worker.lines.length;
    if ((await readdir(runsDir)).includes(".append.lock")) locksLeft += 1;
    const result = await verifyChain({ runsDir, strict: true });
    expect(result.firstBad).toBeNull();
    expect(result.ok).toBe(true);
  }
  console.info(`kill -9: ${appended} appends confirmed, ${locksLeft} of 12 kills left the lock held`);
  const before = await verifyChain({ runsDir });
  expect(before.records).toBeGreaterThanOrEqual(appended);
  // A lock left by a killed holder goes stale and is taken over: the chain is never wedged.
  const { head } = await readChainHead(runsDir);
  await appendRunRecord(makeReport({ prev_hash: head, run_id: "after-kills" }), {
    runsDir,
    hostFingerprint: HOST,
    lockStaleMs: 2000,
  });
  expect(await verifyChain({ runsDir, strict: true })).toMatchObject({ ok: true, records: before.records + 1 });
}, 180_000);
