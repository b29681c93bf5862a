// Warm rerun of `evalgate run` (every case a cache hit), wall clock including Node start-up, for 10 and
// 1,000 cases (goals < 0.35 s and < 1.5 s), with `node -e 0` measured alongside as the floor.
import { rmSync } from "node:fs";
import type { BenchRow } from "../bench.ts";
import { generateBench } from "./run-bench.helpers.ts";
import { median, timeProcess } from "./timing.ts";

export default async function runWarm(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const bare = median(Array.from({ length: 9 }, () => timeProcess(process.execPath, ["-e", "0"])));
  rows.push({ benchmark: "run-warm", measure: "node -e 0 (median of 9)", value: `${bare.toFixed(1)} ms` });
  for (const [cases, goalMs, rounds] of [[10, 350, 9], [1000, 1500, 5]] as const) {
    const bench = generateBench(cases);
    try {
      timeProcess(process.execPath, bench.runArgs(), { cwd: bench.root }); // cold: fills the cache
      timeProcess(process.execPath, bench.runArgs(), { cwd: bench.root }); // and the compile cache
      const warm = median(Array.from({ length: rounds }, () => timeProcess(process.execPath, bench.runArgs(), { cwd: bench.root })));
      rows.push({ benchmark: "run-warm", measure: `${cases} cases, all cache hits (median of ${rounds})`, value: `${warm.toFixed(0)} ms`, goal: `< ${goalMs} ms`, ok: warm < goalMs });
    } finally {
      rmSync(bench.root, { recursive: true, force: true });
    }
  }
  return rows;
}
