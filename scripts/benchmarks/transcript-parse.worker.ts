// One measured parse in a fresh process (so peak RSS is this parse's alone), used by
// transcript-parse.bench.ts: `node transcript-parse.worker.ts <mode> <format> <file>`.
// Modes: `baseline` streams the file, splits lines and JSON.parses each (the floor any parser pays);
// `parser` runs @eval/tool-normalize's parseTranscriptFile; `slurp` reads the whole file and parses
// every line (what not streaming would cost in memory). Prints one JSON line: {ms, max_rss_mb, retained_heap_mb, lines}.
import { createReadStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { pathToFileURL } from "node:url";

const [mode, format, file] = process.argv.slice(2) as [string, string, string];
// Loaded before the clock starts: module loading is a one-off cost, not parsing speed.
const dist = join(import.meta.dirname, "..", "..", "packages", "tool-normalize", "dist", "index.js");
const { parseTranscriptFile } = (await import(
  pathToFileURL(dist).href
)) as typeof import("../../packages/tool-normalize/src/index.ts");
const start = process.hrtime.bigint();
let lines = 0;
let kept: unknown;
if (mode === "baseline") {
  const decoder = new StringDecoder("utf8");
  let buffered = "";
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const text = buffered + decoder.write(chunk as Buffer);
    let from = 0;
    for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", from)) {
      JSON.parse(text.slice(from, newline));
      lines += 1;
      from = newline + 1;
    }
    buffered = text.slice(from);
  }
} else if (mode === "slurp") {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line === "") continue;
    JSON.parse(line);
    lines += 1;
  }
} else if (mode === "parser") {
  const transcript = await parseTranscriptFile(format as Parameters<typeof parseTranscriptFile>[0], file);
  lines = transcript.tool_calls.length;
  kept = transcript;
} else {
  throw new Error(`unknown mode ${mode}`);
}
const ms = Number(process.hrtime.bigint() - start) / 1e6;
// With --expose-gc: what stays alive once parsing is done (the transcript itself), apart from GC slack.
(globalThis as { gc?: () => void }).gc?.();
const retainedHeapMb = process.memoryUsage().heapUsed / 2 ** 20;
console.log(
  JSON.stringify({
    ms,
    max_rss_mb: process.resourceUsage().maxRSS / 1024,
    retained_heap_mb: retainedHeapMb,
    lines,
    kept: kept === undefined ? 0 : 1,
  }),
);
