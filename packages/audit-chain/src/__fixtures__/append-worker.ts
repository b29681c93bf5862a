// A separate process that appends to a chain through the public API (concurrency and kill -9 tests).
// argv: <runsDir> <hostFingerprint> <label> <mode: once|loop|hold> [lockStaleMs]
// once: reads the head, prints "ready", waits for "go" on stdin, appends (rereading the head and
//       retrying after each ChainConflict), prints one JSON line with the outcome.
// loop: appends as fast as it can until killed, printing each appended chain hash.
// hold: takes the append lock, prints "held" and keeps it until killed.
import { appendRunRecord, readChainHead, withAppendLock } from "../index.ts";
import { makeReport } from "./reports.ts";

const [runsDir, host, label, mode, stale] = process.argv.slice(2) as [string, string, string, string, string | undefined];
const lockStaleMs = stale === undefined ? undefined : Number(stale);
const broken: string[] = [];

async function appendOnce(runId: string, prevHash: string) {
  return appendRunRecord(makeReport({ prev_hash: prevHash, run_id: runId, host_fingerprint: host }), {
    runsDir,
    hostFingerprint: host,
    lockStaleMs,
    onWarning: (warning) => broken.push(warning.code),
  });
}

if (mode === "once") {
  let head = (await readChainHead(runsDir)).head;
  process.stdout.write("ready\n");
  await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
  const conflicts: string[] = [];
  for (;;) {
    try {
      const { record } = await appendOnce(label, head);
      process.stdout.write(`${JSON.stringify({ label, chain_hash: record.chain_hash, conflicts, broken })}\n`);
      process.exit(0);
    } catch (error) {
      if ((error as { code?: string }).code !== "EVAL_CHAIN_CONFLICT") throw error;
      conflicts.push((error as Error).message);
      head = (await readChainHead(runsDir)).head;
    }
  }
} else if (mode === "hold") {
  await withAppendLock(runsDir, async () => {
    process.stdout.write("held\n");
    await new Promise(() => setInterval(() => {}, 1000));
  });
} else {
  for (let index = 0; ; index += 1) {
    try {
      const { record } = await appendOnce(`${label}-${index}`, (await readChainHead(runsDir)).head);
      process.stdout.write(`${record.chain_hash}\n`);
    } catch (error) {
      if ((error as { code?: string }).code !== "EVAL_CHAIN_CONFLICT") throw error;
    }
  }
}
