// Cold `evalgate run` throughput (no-op SUT, trivial Node rubric under the permission model, every case
// a miss) against spawning `node -e 0` once per case with the same concurrency, in the same run.
// Goal: at least 65% of that spawn-bound rate.
import { spawn } from "node:child_process";
import { cpus } from "node:os";
import { rmSync } from "node:fs";
import type { BenchRow } from "../bench.ts";
import { generateBench } from "./run-bench.helpers.ts";
import { timeProcess } from "./timing.ts";

const CASES = 200;

/** Wall-clock ms to spawn `node -e 0` `count` times, `concurrency` at a time. */
async function spawnBaseline(count: number, concurrency: number): Promise<number> {
  const start = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      await new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
        child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`node -e 0 exited ${code}`))));
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - start;
}

export default async function runCold(): Promise<BenchRow[]> {
  const concurrency = Math.min(cpus().length, 4);
  const bench = generateBench(CASES);
  try {
    const rounds = 3;
    const ratios: number[] = [];
    let lastRun = 0;
    let lastBase = 0;
    for (let round = 0; round < rounds; round += 1) {
      lastBase = await spawnBaseline(CASES, concurrency);
      lastRun = timeProcess(process.execPath, bench.runArgs(["--no-cache", "--concurrency", String(concurrency)]), { cwd: bench.root });
      ratios.push(lastBase / lastRun);
    }
    ratios.sort((a, b) => a - b);
    const ratio = ratios[Math.floor(rounds / 2)]!;
    return [
      { benchmark: "run-cold", measure: `spawn node -e 0 x${CASES}, concurrency ${concurrency} (last round)`, value: `${lastBase.toFixed(0)} ms (${((CASES / lastBase) * 1000).toFixed(1)}/s)` },
      { benchmark: "run-cold", measure: `evalgate run --no-cache, ${CASES} cases incl. start-up (last round)`, value: `${lastRun.toFixed(0)} ms (${((CASES / lastRun) * 1000).toFixed(1)}/s)` },
      { benchmark: "run-cold", measure: `rate vs spawn-bound rate (median of ${rounds})`, value: `${(ratio * 100).toFixed(0)}%`, goal: ">= 65%", ok: ratio >= 0.65 },
    ];
  } finally {
    rmSync(bench.root, { recursive: true, force: true });
  }
}
