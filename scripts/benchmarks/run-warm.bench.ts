// Warm rerun of `evalgate run` (every case a cache hit), wall clock and CPU (user + system) including Node
// start-up, for 10 and 1,000 cases (goals < 0.35 s and < 1.0 s wall), with `node -e 0` measured in the same
// rounds as the floor: on a shared machine the ratios and the CPU figures are what to read.
import { rmSync } from "node:fs";
import type { BenchRow } from "../bench.ts";
import { generateBench } from "./run-bench.helpers.ts";
import { median, timeProcessCpu } from "./timing.ts";

export default async function runWarm(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [cases, goalMs, rounds] of [
    [10, 350, 9],
    [1000, 1000, 5],
  ] as const) {
    const bench = generateBench(cases);
    try {
      timeProcessCpu(process.execPath, bench.runArgs(), { cwd: bench.root }); // cold: fills the cache
      timeProcessCpu(process.execPath, bench.runArgs(), { cwd: bench.root }); // and the compile cache
      const floor: { wallMs: number; cpuMs: number }[] = [];
      const warm: { wallMs: number; cpuMs: number }[] = [];
      for (let round = 0; round < rounds; round += 1) {
        floor.push(timeProcessCpu(process.execPath, ["-e", "0"]));
        warm.push(timeProcessCpu(process.execPath, bench.runArgs(), { cwd: bench.root }));
      }
      const [floorWall, floorCpu, wall, cpu] = [
        median(floor.map((f) => f.wallMs)),
        median(floor.map((f) => f.cpuMs)),
        median(warm.map((w) => w.wallMs)),
        median(warm.map((w) => w.cpuMs)),
      ];
      rows.push({
        benchmark: "run-warm",
        measure: `${cases} cases, all cache hits, wall: node -e 0 / run (medians of ${rounds}, alternated)`,
        value: `${floorWall.toFixed(0)} ms / ${wall.toFixed(0)} ms = ${(wall / floorWall).toFixed(1)}x`,
        goal: `< ${goalMs} ms`,
        ok: wall < goalMs,
      });
      rows.push({
        benchmark: "run-warm",
        measure: `${cases} cases, all cache hits, CPU (user + sys): node -e 0 / run`,
        value: `${floorCpu.toFixed(0)} ms / ${cpu.toFixed(0)} ms = ${(cpu / Math.max(floorCpu, 10)).toFixed(1)}x`,
      });
    } finally {
      rmSync(bench.root, { recursive: true, force: true });
    }
  }
  return rows;
}
