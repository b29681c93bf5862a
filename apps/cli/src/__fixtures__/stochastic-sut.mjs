// A stochastic `command:` SUT for trials tests and the reliability example (docs/reliability.md): it solves the
// upper-case task (upper-cases the workspace's text.txt) with probability p, given as its one argument, drawing
// from the request's per-trial seed, so each trial of a case is its own reproducible draw.
//   evalgate run --task-class upper --sut 'command:node stochastic-sut.mjs 0.7' --trials 5
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";

const p = Number(process.argv[2]);
if (!(p >= 0 && p <= 1)) {
  process.stderr.write("usage: stochastic-sut.mjs <probability of success in [0, 1]>\n");
  process.exit(2);
}
const request = JSON.parse(readFileSync(0, "utf8"));
const seed = request.trial_seed ?? request.canary_seed;
// A uniform draw in [0, 1) from the seed and p: two SUTs with different p draw independently.
const draw = parseInt(createHash("sha256").update(`${seed}:${p}`).digest("hex").slice(0, 12), 16) / 2 ** 48;
const solved = draw < p;
if (solved) {
  const path = `${request.workspace_path}/text.txt`;
  writeFileSync(path, readFileSync(path, "utf8").toUpperCase());
}
process.stdout.write(JSON.stringify({ cost_usd: 0, trial: request.trial ?? 0, solved }));
