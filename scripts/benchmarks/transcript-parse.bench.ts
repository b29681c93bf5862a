// Transcript parsing throughput and memory (goal: streaming, so peak RSS stays far below the file size).
// Two inputs: the real 556 KB Copilot events.jsonl, and a generated ~100 MB Copilot log (the real one
// repeated with fresh tool-call ids, so every copy adds real tool calls rather than duplicates).
// Baseline in the same run: streaming line splitting + JSON.parse of the same bytes. Each measurement
// is a fresh process (peak RSS is its own), alternated with the baseline; medians are reported.
// Needs built packages (`pnpm build`).
import { spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchRow } from "../bench.ts";
import { median } from "./timing.ts";

const root = join(import.meta.dirname, "..", "..");
const worker = join(import.meta.dirname, "transcript-parse.worker.ts");
const copilotLog = join(root, "packages", "tool-normalize", "src", "__fixtures__", "copilot-cli.events.jsonl");

interface Run {
  readonly ms: number;
  readonly max_rss_mb: number;
  readonly retained_heap_mb: number;
  readonly lines: number;
}

function spawnWorker(mode: string, file: string, nodeFlags: readonly string[] = []) {
  return spawnSync(process.execPath, [...nodeFlags, "--expose-gc", worker, mode, "copilot-events-jsonl", file], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
}

function measure(mode: string, file: string): Run {
  const result = spawnWorker(mode, file);
  if (result.status !== 0) throw new Error(`transcript-parse worker ${mode} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Run;
}

/** Whether a mode completes when V8's heap is capped well below the file size. */
function completesUnderCap(mode: string, file: string, capMb: number): boolean {
  return spawnWorker(mode, file, [`--max-old-space-size=${capMb}`]).status === 0;
}

async function generate(path: string, targetBytes: number): Promise<number> {
  const lines = readFileSync(copilotLog, "utf8")
    .split("\n")
    .filter((line) => line !== "");
  const out = createWriteStream(path);
  let written = 0;
  for (let copy = 0; written < targetBytes; copy += 1) {
    for (const line of lines) {
      const renamed = line.replace(/"(toolCallId|messageId|id)":"([^"]+)"/g, `"$1":"$2-${copy}"`);
      written += Buffer.byteLength(renamed) + 1;
      if (!out.write(`${renamed}\n`)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
    }
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return written;
}

function rows(label: string, file: string, rounds: number): { rows: BenchRow[]; retainedMb: number; mb: number } {
  const mb = statSync(file).size / 2 ** 20;
  const baseline: Run[] = [];
  const parser: Run[] = [];
  for (let round = 0; round < rounds; round += 1) {
    baseline.push(measure("baseline", file));
    parser.push(measure("parser", file));
  }
  const baseMs = median(baseline.map((run) => run.ms));
  const parseMs = median(parser.map((run) => run.ms));
  const baselineRssMb = median(baseline.map((run) => run.max_rss_mb));
  const parserRssMb = median(parser.map((run) => run.max_rss_mb));
  const retainedMb = median(parser.map((run) => run.retained_heap_mb));
  return {
    mb,
    retainedMb,
    rows: [
      {
        benchmark: "transcript-parse",
        measure: `${label}: size`,
        value: `${mb.toFixed(1)} MB, ${parser[0]!.lines} tool calls`,
      },
      {
        benchmark: "transcript-parse",
        measure: `${label}: baseline (split + JSON.parse), median of ${rounds}`,
        value: `${(mb / (baseMs / 1000)).toFixed(1)} MB/s, peak RSS ${baselineRssMb.toFixed(0)} MB`,
      },
      {
        benchmark: "transcript-parse",
        measure: `${label}: parseTranscriptFile, median of ${rounds}`,
        value: `${(mb / (parseMs / 1000)).toFixed(1)} MB/s, peak RSS ${parserRssMb.toFixed(0)} MB, heap kept ${retainedMb.toFixed(0)} MB`,
      },
      {
        benchmark: "transcript-parse",
        measure: `${label}: parser time / baseline time`,
        value: `${(parseMs / baseMs).toFixed(2)}x`,
        goal: "<= 3x",
        ok: parseMs / baseMs <= 3,
      },
    ],
  };
}

export default async function transcriptParse(): Promise<BenchRow[]> {
  if (!existsSync(join(root, "packages", "tool-normalize", "dist", "index.js")))
    throw new Error("transcript-parse: run `pnpm build` first");
  const dir = mkdtempSync(join(tmpdir(), "transcript-bench-"));
  try {
    const quarter = join(dir, "copilot-25mb.events.jsonl");
    const big = join(dir, "copilot-100mb.events.jsonl");
    await generate(quarter, 25 * 2 ** 20);
    await generate(big, 100 * 2 ** 20);
    const real = rows("copilot 556 KB (real)", copilotLog, 15);
    const small = rows("copilot ~25 MB (generated)", quarter, 3);
    const large = rows("copilot ~100 MB (generated)", big, 3);
    const slurp = measure("slurp", big);
    // Streaming means memory follows what the transcript keeps (excerpts per tool call), not the bytes read.
    const keptPerMb = (large.retainedMb - small.retainedMb) / (large.mb - small.mb);
    const capMb = 64;
    const parserUnderCap = completesUnderCap("parser", big, capMb);
    const slurpUnderCap = completesUnderCap("slurp", big, capMb);
    return [
      ...real.rows,
      ...small.rows,
      ...large.rows,
      {
        benchmark: "transcript-parse",
        measure: "copilot ~100 MB: reading it whole instead (not done), peak RSS",
        value: `${slurp.max_rss_mb.toFixed(0)} MB`,
      },
      {
        benchmark: "transcript-parse",
        measure: "heap kept per MB of stream, 25 MB -> 100 MB",
        value: `${keptPerMb.toFixed(3)} MB/MB`,
        goal: "< 0.25",
        ok: keptPerMb < 0.25,
      },
      {
        benchmark: "transcript-parse",
        measure: `copilot ~100 MB with V8 old space capped at ${capMb} MB: parser / reading whole`,
        value: `${parserUnderCap ? "completes" : "fails"} / ${slurpUnderCap ? "completes" : "fails"}`,
        goal: "parser completes",
        ok: parserUnderCap,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
