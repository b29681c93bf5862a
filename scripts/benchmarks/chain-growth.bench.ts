// A warm 10-case `evalgate run` (every case a cache hit) with 10, 10,000 and 100,000 records already in
// the chain: wall time and peak memory, with the chain checkpoint (the run reads only records newer
// than it) against the same run with the checkpoint deleted first (the whole chain walked, as every run
// did before the checkpoint). Also the full `evalgate verify` at each size. The history is written
// with the library's fast path (buildChainRecord), not by thousands of CLI runs.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildChainRecord } from "../../packages/audit-chain/src/index.ts";
import type { BenchRow } from "../bench.ts";
import { BIN, generateBench } from "./run-bench.helpers.ts";
import { median } from "./timing.ts";
import { report } from "./verify.bench.ts";

const GENESIS = `sha256:${"0".repeat(64)}`;

/** Wall ms and peak RSS (MiB) of one process, from GNU time. */
function measure(args: readonly string[], cwd: string): { ms: number; mib: number } {
  const start = process.hrtime.bigint();
  const result = spawnSync("/usr/bin/time", ["-f", "maxrss_kib=%M", process.execPath, ...args], { cwd, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  const kib = Number(/maxrss_kib=(\d+)/.exec(result.stderr)?.[1] ?? Number.NaN);
  return { ms, mib: kib / 1024 };
}

/** Writes `count` chained 10-case records for `host` into an empty runs directory. */
async function writeHistory(runsDir: string, count: number, host: string): Promise<void> {
  rmSync(runsDir, { recursive: true, force: true });
  mkdirSync(runsDir, { recursive: true });
  let prev = GENESIS;
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  for (let index = 0; index < count; index += 1) {
    const built = await buildChainRecord(report(index, prev, host), { prevHash: prev, sequence: index, recordedAt: new Date(start + index * 60_000).toISOString(), hostFingerprint: host });
    writeFileSync(join(runsDir, built.fileName), built.text, { mode: 0o600 });
    prev = built.record.chain_hash;
  }
}

const summary = (values: readonly { ms: number; mib: number }[]): string => `${median(values.map((v) => v.ms)).toFixed(0)} ms, ${median(values.map((v) => v.mib)).toFixed(0)} MiB`;

export default async function chainGrowth(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const bench = generateBench(10);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const sizes = (process.env.BENCH_CHAIN_SIZES ?? "10,10000,100000").split(",").map(Number);
  try {
    measure(bench.runArgs(), bench.root); // cold: fills the cache, makes host_id and cache.key
    const host = readFileSync(join(bench.stateDir, "host_id"), "utf8").trim();
    const runsDir = join(bench.stateDir, "runs");
    const checkpoint = join(bench.stateDir, "chain.checkpoint");
    let flat10: number | null = null;
    for (const size of sizes) {
      await writeHistory(runsDir, size, host);
      rmSync(checkpoint, { force: true });
      const first = measure(bench.runArgs(), bench.root); // walks everything once, writes the checkpoint
      const withCheckpoint = Array.from({ length: rounds }, () => measure(bench.runArgs(), bench.root));
      const without = Array.from({ length: rounds }, () => {
        rmSync(checkpoint, { force: true });
        return measure(bench.runArgs(), bench.root);
      });
      const verify = [measure([BIN, "verify", "--out", bench.stateDir], bench.root)];
      const warmMs = median(withCheckpoint.map((v) => v.ms));
      flat10 ??= warmMs;
      rows.push(
        { benchmark: "chain-growth", measure: `${size} records: warm 10-case run, checkpoint (median of ${rounds})`, value: summary(withCheckpoint), goal: `<= 1.25x the ${sizes[0]}-record run`, ok: warmMs <= flat10 * 1.25 },
        { benchmark: "chain-growth", measure: `${size} records: warm 10-case run, no checkpoint: whole chain walked (median of ${rounds})`, value: summary(without) },
        { benchmark: "chain-growth", measure: `${size} records: first run after the checkpoint is deleted`, value: summary([first]) },
        { benchmark: "chain-growth", measure: `${size} records: evalgate verify (full, streaming)`, value: summary(verify) },
      );
    }
  } finally {
    rmSync(bench.root, { recursive: true, force: true });
  }
  return rows;
}
