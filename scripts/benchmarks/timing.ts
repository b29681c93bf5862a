// Small helpers shared by the benchmarks.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Wall-clock milliseconds of one process run to completion; throws when it fails. */
export function timeProcess(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: ["ignore", "ignore", "pipe"], ...options });
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return elapsed;
}

/** CPU time (user + system) of this process's waited-for children so far, in ms (Linux: /proc/self/stat, 10 ms ticks). */
function childrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  // After ") ": state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** Wall-clock and CPU (user + system) milliseconds of one process run to completion; throws when it fails. */
export function timeProcessCpu(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): { wallMs: number; cpuMs: number } {
  const before = childrenCpuMs();
  const wallMs = timeProcess(command, args, options);
  return { wallMs, cpuMs: childrenCpuMs() - before };
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
