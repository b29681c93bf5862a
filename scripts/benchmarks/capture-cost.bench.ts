// What capturing a case's workspace costs (the harness's own diff: reading the input and the workspace,
// hashing what changed, storing it in the blob store) and rendering its diff, per case, against the floor
// every case pays without capture: copying the case's input into a fresh workspace. A case like the
// vuln-remediation bench's (a package.json, a ~150 KB lockfile, 30 small source files) whose SUT changes
// the manifest and the lockfile and adds a file; every case's changes differ, so no blob is shared.
// The SUT's stdout and stderr are stored the same way (two more blobs, capped): measured as "streams".
// BENCH_CASES (default 200) sets how many cases; the medians of BENCH_ROUNDS (default 3) rounds are given.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchRow } from "../bench.ts";
import { blake3Digest } from "../../packages/hashing/src/index.ts";
import { writeBlob } from "../../packages/runner/src/blob-store.ts";
import { capturedDiff, captureWorkspace } from "../../packages/runner/src/workspace-capture.ts";
import { median } from "./timing.ts";

const CASES = Number(process.env.BENCH_CASES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function makeInput(root: string): string[] {
  const files: string[] = ["package.json", "package-lock.json"];
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(
    join(root, "package.json"),
    JSON.stringify({ name: "app", dependencies: { lodash: "4.17.20" } }, null, 2),
  );
  const lock = Array.from(
    { length: 1500 },
    (_, i) => `    "node_modules/pkg-${i}": { "version": "1.0.${i}", "integrity": "sha512-${"x".repeat(40)}" },`,
  ).join("\n");
  writeFileSync(join(root, "package-lock.json"), `{\n  "packages": {\n${lock}\n  }\n}\n`);
  for (let i = 0; i < 30; i += 1) {
    writeFileSync(join(root, "src", `m${i}.js`), `export const value${i} = ${i};\n`.repeat(60));
    files.push(`src/m${i}.js`);
  }
  return files.sort();
}

/** The SUT's edit of case `index`: a manifest bump, a lockfile line changed, a new file. */
function edit(workspace: string, index: number): void {
  writeFileSync(
    join(workspace, "package.json"),
    JSON.stringify({ name: "app", dependencies: { lodash: `4.17.${21 + index}` } }, null, 2),
  );
  const lock = readFileSync(join(workspace, "package-lock.json"), "utf8").replace(
    '"version": "1.0.7"',
    `"version": "1.1.${index}"`,
  );
  writeFileSync(join(workspace, "package-lock.json"), lock);
  writeFileSync(join(workspace, "NOTES.md"), `case ${index}: bumped lodash\n`);
}

interface Round {
  readonly floorMs: number;
  readonly captureMs: number;
  readonly diffMs: number;
  readonly streamsMs: number;
}

function round(root: string, input: string, inputFiles: readonly string[]): Round {
  const blobsDir = join(root, "blobs");
  rmSync(blobsDir, { recursive: true, force: true });
  let floorMs = 0;
  let captureMs = 0;
  let diffMs = 0;
  let streamsMs = 0;
  const stdout = Buffer.from("npm notice lodash updated\n".repeat(2000));
  for (let index = 0; index < CASES; index += 1) {
    const workspace = join(root, "ws", String(index));
    let start = performance.now();
    cpSync(input, workspace, { recursive: true });
    floorMs += performance.now() - start;
    edit(workspace, index);
    const workspaceFiles = [...inputFiles, "NOTES.md"].sort();
    start = performance.now();
    const capture = captureWorkspace({
      inputRoot: input,
      inputFiles,
      workspaceRoot: workspace,
      workspaceFiles,
      blobsDir,
    });
    captureMs += performance.now() - start;
    start = performance.now();
    capturedDiff(blobsDir, capture);
    diffMs += performance.now() - start;
    start = performance.now();
    for (const stream of [Buffer.concat([stdout, Buffer.from(String(index))]), Buffer.from(`warn ${index}\n`)])
      writeBlob(blobsDir, blake3Digest(stream), stream);
    streamsMs += performance.now() - start;
  }
  rmSync(join(root, "ws"), { recursive: true, force: true });
  return {
    floorMs: floorMs / CASES,
    captureMs: captureMs / CASES,
    diffMs: diffMs / CASES,
    streamsMs: streamsMs / CASES,
  };
}

export default async function captureCostBench(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), "capture-bench-"));
  try {
    const input = join(root, "input");
    const inputFiles = makeInput(input);
    const rounds = Array.from({ length: ROUNDS }, () => round(root, input, inputFiles));
    const m = (pick: (r: Round) => number): number => median(rounds.map(pick));
    const [floor, capture, diff, streams] = [
      m((r) => r.floorMs),
      m((r) => r.captureMs),
      m((r) => r.diffMs),
      m((r) => r.streamsMs),
    ];
    const ms = (value: number): string => `${value.toFixed(2)} ms`;
    const of = (value: number): string => `${ms(value)} = ${(value / floor).toFixed(2)}x the floor`;
    return [
      {
        benchmark: "capture-cost",
        measure: `floor: copy a case's input into a workspace (${inputFiles.length} files), per case, median of ${ROUNDS} x ${CASES}`,
        value: ms(floor),
      },
      {
        benchmark: "capture-cost",
        measure: "capture the workspace (read, compare, hash and store what changed), per case",
        value: of(capture),
      },
      { benchmark: "capture-cost", measure: "store the SUT's stdout (52 KB) and stderr, per case", value: of(streams) },
      {
        benchmark: "capture-cost",
        measure: "render the captured diff (show / report time, not run time), per case",
        value: of(diff),
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
