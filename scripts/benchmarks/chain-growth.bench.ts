// A warm 10-case `evalgate run` (every case a cache hit) with 10 and with 100,000 records already in the
// chain (BENCH_CHAIN_RECORDS), alternated: wall time and peak memory. Then the same large run with the
// checkpoint deleted first (rebuilt by one pass over the links: verifyChainLinks), and the
// full `evalgate verify`. The history is written with the library's fast path (buildChainRecord), not by
// thousands of CLI runs.
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
  const result = spawnSync("/usr/bin/time", ["-f", "maxrss_kib=%M", process.execPath, ...args], {
    cwd,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
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
    const built = await buildChainRecord(report(index, prev, host), {
      prevHash: prev,
      sequence: index,
      recordedAt: new Date(start + index * 60_000).toISOString(),
      hostFingerprint: host,
    });
    writeFileSync(join(runsDir, built.fileName), built.text, { mode: 0o600 });
    prev = built.record.chain_hash;
  }
}

const summary = (values: readonly { ms: number; mib: number }[]): string =>
  `${median(values.map((v) => v.ms)).toFixed(0)} ms, ${median(values.map((v) => v.mib)).toFixed(0)} MiB`;

/** A generated 10-case task class, its cache warm, with `records` chained records and a checkpoint. */
async function prepared(records: number): Promise<ReturnType<typeof generateBench>> {
  const bench = generateBench(10);
  measure(bench.runArgs(), bench.root); // cold: fills the cache, makes host_id and cache.key
  const host = readFileSync(join(bench.stateDir, "host_id"), "utf8").trim();
  await writeHistory(join(bench.stateDir, "runs"), records, host);
  rmSync(join(bench.stateDir, "chain.checkpoint"), { force: true });
  measure(bench.runArgs(), bench.root); // walks the history once and writes the checkpoint
  return bench;
}

export default async function chainGrowth(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
  const large = Number(process.env.BENCH_CHAIN_RECORDS ?? 100_000);
  const small = await prepared(10);
  const big = await prepared(large);
  try {
    // Alternated, so drift on a shared machine hits both sizes alike.
    const smallRuns: { ms: number; mib: number }[] = [];
    const bigRuns: { ms: number; mib: number }[] = [];
    for (let round = 0; round < rounds; round += 1) {
      smallRuns.push(measure(small.runArgs(), small.root));
      bigRuns.push(measure(big.runArgs(), big.root));
    }
    const ratio = median(bigRuns.map((v) => v.ms)) / median(smallRuns.map((v) => v.ms));
    const without = Array.from({ length: 3 }, () => {
      rmSync(join(big.stateDir, "chain.checkpoint"), { force: true });
      return measure(big.runArgs(), big.root);
    });
    const verify = [measure([BIN, "verify", "--out", big.stateDir], big.root)];
    rows.push(
      {
        benchmark: "chain-growth",
        measure: `10 records: warm 10-case run (median of ${rounds}, alternated)`,
        value: summary(smallRuns),
      },
      {
        benchmark: "chain-growth",
        measure: `${large} records: warm 10-case run (median of ${rounds}, alternated)`,
        value: summary(bigRuns),
      },
      {
        benchmark: "chain-growth",
        measure: `${large} / 10 records, time`,
        value: `${ratio.toFixed(2)}x`,
        goal: "<= 1.15x",
        ok: ratio <= 1.15,
      },
      {
        benchmark: "chain-growth",
        measure: `${large} records: warm run with the checkpoint deleted (rebuilt by one pass over the links; median of 3)`,
        value: summary(without),
      },
      {
        benchmark: "chain-growth",
        measure: `${large} records: evalgate verify (full walk, streaming)`,
        value: summary(verify),
      },
    );
  } finally {
    rmSync(small.root, { recursive: true, force: true });
    rmSync(big.root, { recursive: true, force: true });
  }
  return rows;
}
