// The views of a long history: `runs`, `show`, `report`, `promote-verdict` and `verify` on a state directory
// with 100,000 chained records (BENCH_HISTORY_RECORDS) of one task class, against the same commands on 10
// records (the floor, same run, alternated). Wall time and peak RSS of each command as a process (GNU time).
// The history is written with the library's buildChainRecord, as chain-growth does; its SUT changes every
// 10 runs (a nightly job on a moving SUT), and the newest run is a real one with its details.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildChainRecord } from "../../packages/audit-chain/src/index.ts";
import type { BenchRow } from "../bench.ts";
import { BIN, generateBench, REPO } from "./run-bench.helpers.ts";
import type { GeneratedBench } from "./run-bench.helpers.ts";
import { median } from "./timing.ts";
import { report } from "./verify.bench.ts";

const GENESIS = `sha256:${"0".repeat(64)}`;

interface Measured {
  readonly ms: number;
  readonly mib: number;
}

/** Wall ms and peak RSS (MiB) of one CLI process, from GNU time; exit codes in `accept` count as success. */
function measure(args: readonly string[], cwd: string, accept: readonly number[] = [0]): Measured {
  const start = process.hrtime.bigint();
  const result = spawnSync("/usr/bin/time", ["-f", "maxrss_kib=%M", process.execPath, BIN, ...args], {
    cwd,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (!accept.includes(result.status ?? -1))
    throw new Error(`evalgate ${args.join(" ")} exited ${result.status}: ${result.stderr.slice(-2000)}`);
  const kib = Number(/maxrss_kib=(\d+)/.exec(result.stderr)?.[1] ?? Number.NaN);
  return { ms, mib: kib / 1024 };
}

/** `count` chained records of task class `perf` (the SUT changes every 10), then the real run's record re-appended by a run. */
async function writeHistory(runsDir: string, count: number, host: string): Promise<void> {
  rmSync(runsDir, { recursive: true, force: true });
  mkdirSync(runsDir, { recursive: true });
  let prev = GENESIS;
  const start = Date.parse("2025-01-01T00:00:00.000Z");
  for (let index = 0; index < count; index += 1) {
    const sut = `blake3:${(Math.floor(index / 10) + 1).toString(16).padStart(64, "0")}`;
    const built = await buildChainRecord(
      { ...report(index, prev, host), task_class: "perf", sut_digest: sut },
      {
        prevHash: prev,
        sequence: index,
        recordedAt: new Date(start + index * 60_000).toISOString(),
        hostFingerprint: host,
      },
    );
    writeFileSync(join(runsDir, built.fileName), built.text, { mode: 0o600 });
    prev = built.record.chain_hash;
  }
}

/** A 10-case task class with `records` history records and one real run on top (its cache warm, its details kept). */
async function prepared(records: number): Promise<GeneratedBench> {
  const bench = generateBench(10);
  measure(bench.runArgs().slice(1), bench.root); // makes host_id and cache.key, fills the cache
  const host = readFileSync(join(bench.stateDir, "host_id"), "utf8").trim();
  await writeHistory(join(bench.stateDir, "runs"), records, host);
  rmSync(join(bench.stateDir, "chain.checkpoint"), { force: true });
  measure(bench.runArgs(["--no-cache"]).slice(1), bench.root); // the newest run: real details, and the checkpoint
  writeFileSync(
    tiersFile(bench),
    `${readFileSync(join(REPO, "docs", "trust-tiers.yaml"), "utf8").trimEnd()}\n  perf: untrusted\n`,
  );
  return bench;
}

const tiersFile = (bench: GeneratedBench): string => join(bench.root, "trust-tiers.yaml");

const views = (bench: GeneratedBench): Record<string, { args: string[]; accept?: number[] }> => {
  const common = ["--bench-root", bench.benchRoot, "--out", bench.stateDir, "--trust-tiers", tiersFile(bench)];
  return {
    "runs --limit 20": { args: ["runs", "--limit", "20", "--out", bench.stateDir] },
    "runs --task-class perf (every run)": { args: ["runs", "--task-class", "perf", "--out", bench.stateDir] },
    show: { args: ["show", ...common] },
    "report (HTML)": { args: ["report", ...common, "--output", join(bench.root, "report.html")] },
    "promote-verdict": {
      args: ["promote-verdict", "--task-class", "perf", "--format", "jsonl", ...common],
      accept: [0, 5],
    },
    verify: { args: ["verify", "--out", bench.stateDir] },
  };
};

const show = (m: Measured): string => `${m.ms.toFixed(0)} ms, ${m.mib.toFixed(0)} MiB`;
const medianOf = (values: readonly Measured[]): Measured => ({
  ms: median(values.map((v) => v.ms)),
  mib: median(values.map((v) => v.mib)),
});

export default async function history(): Promise<BenchRow[]> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const large = Number(process.env.BENCH_HISTORY_RECORDS ?? 100_000);
  const only = process.env.BENCH_HISTORY_VIEWS?.split(",");
  const small = await prepared(10);
  const big = await prepared(large);
  const rows: BenchRow[] = [];
  try {
    for (const name of Object.keys(views(small))) {
      if (only !== undefined && !only.some((prefix) => name.startsWith(prefix))) continue;
      const [s, b] = [views(small)[name]!, views(big)[name]!];
      const smallRuns: Measured[] = [];
      const bigRuns: Measured[] = [];
      for (let round = 0; round < rounds; round += 1) {
        smallRuns.push(measure(s.args, small.root, s.accept));
        bigRuns.push(measure(b.args, big.root, b.accept));
      }
      const [floor, value] = [medianOf(smallRuns), medianOf(bigRuns)];
      // The goal for the views: 3 s and 300 MiB at 100,000 records. On a shared machine the 10-record floor
      // alone can take seconds, so the time goal is what the history adds to it. verify reads every record by design.
      const goal = name === "verify" ? "< 300 MiB" : "< 300 MiB, < 3,000 ms over the floor";
      const ok = value.mib < 300 && (name === "verify" || value.ms - floor.ms < 3000);
      rows.push(
        { benchmark: "history", measure: `${name}: 10 records (floor, median of ${rounds})`, value: show(floor) },
        {
          benchmark: "history",
          measure: `${name}: ${large} records (median of ${rounds}), ratio to the floor`,
          value: `${show(value)}, ${(value.ms / floor.ms).toFixed(2)}x`,
          goal,
          ok,
        },
      );
    }
  } finally {
    if (process.env.BENCH_KEEP === undefined) {
      rmSync(small.root, { recursive: true, force: true });
      rmSync(big.root, { recursive: true, force: true });
    } else console.error(`kept: ${small.root} ${big.root}`);
  }
  return rows;
}
