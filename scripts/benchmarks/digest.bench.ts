// Case-digest verification against native `b3sum` (single thread) over the same files, same run.
// Input: a generated bench of 1,000 cases, about 100 MB (each case: case.toml, input/ with 6-12 files
// and expected/ with 1-3 files, sizes spread log-uniformly from 100 B to 64 KB, the way small
// repositories look), plus one 100 MB file for the large-file end. Goal: verification at least 25% of
// b3sum's throughput. Also times the fence over the repo's real bench/ (goal: under 300 ms).
// Imported by path: the repo root does not depend on workspace packages. Skips b3sum rows when b3sum
// is not installed (apt-get install b3sum).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  digestDirectory,
  loadCases,
  loadTaskClass,
  runFence,
  signBench,
  TaskClassRegistry,
} from "../../packages/registry/src/index.ts";
import { loadTierConfig } from "../../packages/promotion/src/index.ts";
import type { BenchRow } from "../bench.ts";
import { median, timeProcess } from "./timing.ts";

const root = join(import.meta.dirname, "..", "..");
const CASES = 1000;
const ROUNDS = 5;

/** A small deterministic generator (mulberry32), so every run hashes the same bench. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generateBench(dir: string): { bytes: number; files: number } {
  const next = random(42);
  const pool = Buffer.alloc(1 << 20);
  for (let index = 0; index < pool.length; index += 1) pool[index] = Math.floor(next() * 256);
  const benchPath = join(dir, "bench", "uppercase");
  cpSync(join(root, "packages", "registry", "src", "__fixtures__", "demo-bench", "uppercase"), benchPath, {
    recursive: true,
    filter: (source) => !source.includes("/cases/"),
  });
  mkdirSync(join(dir, "node_modules", "@eval"), { recursive: true });
  for (const name of ["registry", "models", "errors", "rubric-protocol"])
    symlinkSync(join(root, "packages", name), join(dir, "node_modules", "@eval", name));
  let bytes = 0;
  let files = 0;
  for (let index = 0; index < CASES; index += 1) {
    const id = `case-${index.toString().padStart(4, "0")}`;
    const casePath = join(benchPath, "cases", id);
    for (const [sub, count] of [
      ["input", 6 + Math.floor(next() * 7)],
      ["expected", 1 + Math.floor(next() * 3)],
    ] as const) {
      mkdirSync(join(casePath, sub, "src"), { recursive: true });
      for (let file = 0; file < count; file += 1) {
        const size = Math.floor(100 * Math.exp(next() * Math.log(640)));
        const offset = Math.floor(next() * (pool.length - size));
        writeFileSync(
          join(casePath, sub, file % 2 === 0 ? "src" : "", `f${file}.txt`),
          pool.subarray(offset, offset + size),
        );
        bytes += size;
        files += 1;
      }
    }
    writeFileSync(
      join(casePath, "case.toml"),
      [
        `case_id = "${id}"`,
        'task_class = "uppercase"',
        'disposition = "positive"',
        'difficulty = "easy"',
        'source = "curated"',
        'curation_class = "held-out"',
        "added_at = 2026-11-01T00:00:00Z",
        "last_validated_at = 2026-11-20T00:00:00Z",
        `cassette_canary_pin = "${index.toString(16).padStart(32, "0")}"`,
        "",
      ].join("\n"),
    );
  }
  return { bytes, files };
}

const hasB3sum = spawnSync("b3sum", ["--version"]).status === 0;

function b3sumMs(cwd: string, findArgs: string): number {
  return timeProcess(
    "sh",
    ["-c", `find ${findArgs} -type f ! -name case.toml -print0 | xargs -0 b3sum --num-threads 1 > /dev/null`],
    { cwd },
  );
}

async function timeAsync(action: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await action();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export default async function digestBench(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "evalgate-digest-bench-"));
  const rows: BenchRow[] = [];
  try {
    const { bytes, files } = generateBench(dir);
    const benchRoot = join(dir, "bench");
    const benchPath = join(benchRoot, "uppercase");
    await signBench({ benchPath });
    const taskClass = await loadTaskClass("uppercase", { benchRoot, registry: new TaskClassRegistry() });
    const mb = bytes / 1e6;
    rows.push({
      benchmark: "digest",
      measure: "generated bench",
      value: `${CASES} cases, ${files} files, ${mb.toFixed(1)} MB`,
    });

    await loadCases(taskClass); // warm the page cache and the JIT, as a second run would find them
    const ours: number[] = [];
    const native: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      ours.push(await timeAsync(() => loadCases(taskClass)));
      if (hasB3sum) native.push(b3sumMs(benchPath, "cases"));
    }
    const oursMs = median(ours);
    rows.push({
      benchmark: "digest",
      measure: `loadCases: parse + verify all (median of ${ROUNDS})`,
      value: `${oursMs.toFixed(0)} ms = ${(mb / (oursMs / 1000)).toFixed(0)} MB/s`,
    });
    if (hasB3sum) {
      const nativeMs = median(native);
      rows.push({
        benchmark: "digest",
        measure: `b3sum --num-threads 1, same files (median of ${ROUNDS})`,
        value: `${nativeMs.toFixed(0)} ms = ${(mb / (nativeMs / 1000)).toFixed(0)} MB/s`,
      });
      const ratio = nativeMs / oursMs;
      rows.push({
        benchmark: "digest",
        measure: "verification throughput / b3sum",
        value: `${(ratio * 100).toFixed(0)}%`,
        goal: ">= 25%",
        ok: ratio >= 0.25,
      });
    }

    const big = join(dir, "big");
    mkdirSync(big);
    writeFileSync(join(big, "big.bin"), Buffer.alloc(100 * 1024 * 1024, 7));
    await digestDirectory(big);
    const bigOurs: number[] = [];
    const bigNative: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      bigOurs.push(await timeAsync(() => digestDirectory(big)));
      if (hasB3sum) bigNative.push(b3sumMs(big, "."));
    }
    const bigMs = median(bigOurs);
    rows.push({
      benchmark: "digest",
      measure: "one 100 MiB file: digestDirectory",
      value: `${bigMs.toFixed(0)} ms = ${(104.9 / (bigMs / 1000)).toFixed(0)} MB/s`,
    });
    if (hasB3sum) {
      const nativeMs = median(bigNative);
      rows.push({
        benchmark: "digest",
        measure: "one 100 MiB file: b3sum --num-threads 1",
        value: `${nativeMs.toFixed(0)} ms = ${(104.9 / (nativeMs / 1000)).toFixed(0)} MB/s`,
      });
      rows.push({
        benchmark: "digest",
        measure: "one 100 MiB file: ratio (informational)",
        value: `${((nativeMs / bigMs) * 100).toFixed(0)}%`,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const repoBench = join(root, "bench");
  const trustTiers = await loadTierConfig(join(root, "docs", "trust-tiers.yaml"));
  await runFence({ benchRoot: repoBench, trustTiers });
  const fence: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1)
    fence.push((await runFence({ benchRoot: repoBench, trustTiers })).duration_ms);
  const fenceMs = median(fence);
  rows.push({
    benchmark: "fence",
    measure: `runFence over the repo's bench/, in-process (median of ${ROUNDS})`,
    value: `${fenceMs.toFixed(0)} ms`,
    goal: "< 300 ms",
    ok: fenceMs < 300,
  });
  const bin = join(root, "apps", "cli", "dist", "bin.js");
  timeProcess(process.execPath, [bin, "fence"], { cwd: root });
  const cli: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1)
    cli.push(timeProcess(process.execPath, [bin, "fence"], { cwd: root }));
  rows.push({
    benchmark: "fence",
    measure: `evalgate fence, whole process (median of ${ROUNDS})`,
    value: `${median(cli).toFixed(0)} ms`,
    goal: "< 300 ms",
    ok: median(cli) < 300,
  });
  return rows;
}
