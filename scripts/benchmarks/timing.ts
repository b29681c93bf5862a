// Small helpers shared by the benchmarks.
import { spawnSync } from "node:child_process";

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Wall-clock milliseconds of one process run to completion; throws when it fails. */
export function timeProcess(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: ["ignore", "ignore", "pipe"], ...options });
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return elapsed;
}

/** Runs `a` and `b` alternately `rounds` times (so drift on a shared machine hits both) and returns medians. */
export function alternate(rounds: number, a: () => number, b: () => number): { a: number; b: number } {
  const as: number[] = [];
  const bs: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    as.push(a());
    bs.push(b());
  }
  return { a: median(as), b: median(bs) };
}
