// BLAKE3 implementations, same inputs, same run: @eval/hashing (blake3-jit) against hash-wasm (the
// WebAssembly build evalgate used before), @noble/hashes (pure JS) and native b3sum (single thread)
// as the ceiling. Inputs: 64 B and 1 KiB (cache keys and framed digests), 64 KiB (a typical case
// file) and 16 MiB (a large file). Every implementation's output is checked against the others first.
// Goal: @eval/hashing at least as fast as hash-wasm at every size (otherwise hash-wasm would be the pick).
// hash-wasm and @noble/hashes are root devDependencies for this benchmark and the tests' cross-checks.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blake3 as nobleBlake3 } from "@noble/hashes/blake3.js";
import { createBLAKE3 } from "hash-wasm";
import { blake3, toHex } from "../../packages/hashing/src/index.ts";
import type { BenchRow } from "../bench.ts";
import { median } from "./timing.ts";

const SIZES = [64, 1024, 64 * 1024, 16 * 1024 * 1024];
const ROUNDS = 7;

const label = (size: number): string =>
  size >= 1 << 20 ? `${size >> 20} MiB` : size >= 1024 ? `${size >> 10} KiB` : `${size} B`;

/** Median MB/s of `hash` over `input`, each round hashing about 32 MB (at least 3 calls). */
function throughput(hash: (input: Uint8Array) => unknown, input: Uint8Array): number {
  const calls = Math.max(3, Math.floor((32 * 1024 * 1024) / input.length));
  for (let index = 0; index < Math.min(calls, 200); index += 1) hash(input);
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.hrtime.bigint();
    for (let index = 0; index < calls; index += 1) hash(input);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push((input.length * calls) / seconds / 1e6);
  }
  return median(rates);
}

function b3sumRate(dir: string, input: Uint8Array): number | null {
  if (spawnSync("b3sum", ["--version"]).status !== 0) return null;
  const path = join(dir, "input.bin");
  writeFileSync(path, input);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.hrtime.bigint();
    spawnSync("b3sum", ["--no-names", "--num-threads", "1", path]);
    times.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  return input.length / median(times) / 1e6;
}

export default async function hashingBench(): Promise<BenchRow[]> {
  const wasm = await createBLAKE3();
  const impls: Record<string, (input: Uint8Array) => Uint8Array> = {
    "@eval/hashing (blake3-jit)": (input) => blake3(input),
    "hash-wasm": (input) => wasm.init().update(input).digest("binary"),
    "@noble/hashes": (input) => nobleBlake3(input),
  };
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), "evalgate-hashing-bench-"));
  try {
    for (const size of SIZES) {
      const input = new Uint8Array(size).map((_, index) => (index * 7919) % 256);
      const reference = toHex(nobleBlake3(input));
      for (const [name, hash] of Object.entries(impls))
        if (toHex(hash(input)) !== reference) throw new Error(`${name} disagrees at ${size} bytes`);
      const rates = Object.fromEntries(Object.entries(impls).map(([name, hash]) => [name, throughput(hash, input)]));
      for (const [name, rate] of Object.entries(rates))
        rows.push({ benchmark: "hashing", measure: `${label(size)}: ${name}`, value: `${rate.toFixed(0)} MB/s` });
      const ratio = rates["@eval/hashing (blake3-jit)"]! / rates["hash-wasm"]!;
      rows.push({
        benchmark: "hashing",
        measure: `${label(size)}: @eval/hashing / hash-wasm`,
        value: `${ratio.toFixed(2)}x`,
        goal: ">= 0.9x",
        ok: ratio >= 0.9,
      });
      if (size === SIZES.at(-1)) {
        const native = b3sumRate(dir, input);
        if (native !== null)
          rows.push({
            benchmark: "hashing",
            measure: `${label(size)}: b3sum --num-threads 1 (process, informational)`,
            value: `${native.toFixed(0)} MB/s`,
          });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
