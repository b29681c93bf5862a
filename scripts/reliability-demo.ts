// The reliability example of docs/reliability.md, end to end: a 15-case binary task class (upper-case a text file),
// the stochastic command SUT of apps/cli/src/__fixtures__/stochastic-sut.mjs at p = 0.7 and p = 0.9, five trials
// per case each, then `evalgate compare` both ways. Prints every command's human output and exit code. From the
// repo root (needs bubblewrap, as every command SUT run does):
//
//   node scripts/reliability-demo.ts
import { copyFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { runCli } from "../apps/cli/src/cli.ts";
import { makeUpperBench } from "../apps/cli/src/commands/run.test-helpers.ts";

const cases = Object.fromEntries(
  Array.from({ length: 15 }, (_, i) => [`case-${String(i + 1).padStart(2, "0")}`, `text number ${i + 1}`]),
);
const bench = await makeUpperBench(cases, { score_kind: "binary" });
await copyFile(
  join(import.meta.dirname, "..", "apps", "cli", "src", "__fixtures__", "stochastic-sut.mjs"),
  join(bench.root, "stochastic-sut.mjs"),
);

async function evalgate(argv: string[]): Promise<string> {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  process.stdout.write(`\n$ evalgate ${argv.join(" ")}\n`);
  const code = await runCli(argv, { stdout, stderr: process.stderr, env: { PATH: process.env.PATH }, cwd: bench.root });
  const text = Buffer.concat(chunks).toString("utf8");
  process.stdout.write(`${text}(exit ${code})\n`);
  return text;
}

try {
  const runIds: string[] = [];
  for (const p of [0.7, 0.9]) {
    const out = await evalgate([
      "run",
      "--task-class",
      "upper",
      "--bench-root",
      "bench",
      "--sut",
      `command:node stochastic-sut.mjs ${p}`,
      "--trials",
      "5",
      "--format",
      "human",
    ]);
    runIds.push(/; run (\S+); chain head/.exec(out)![1]!);
  }
  await evalgate(["compare", "--baseline", runIds[0]!, "--candidate", runIds[1]!, "--format", "human"]);
  await evalgate([
    "compare",
    "--baseline",
    runIds[1]!,
    "--candidate",
    runIds[0]!,
    "--fail-on-regression=-0.05",
    "--format",
    "human",
  ]);
} finally {
  await rm(bench.root, { recursive: true, force: true });
}
