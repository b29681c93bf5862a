// Re-measures the betting bound's coverage for the bench in hand (docs/runner.md, "Valid for the bench in
// hand"): a bench reads its scores in one order, fixed by its seed (the selection digest), so the figure that
// matters is each seed's own miss rate, not the average over seeds. Three tables, each over many fixed seeds:
// - exact, i.i.d. 0/1 scores, n = 10 and 12: every sequence enumerated, each seed's worst true pass rate found
//   exactly (the miss probability is a step function of p, largest just below one of the bounds);
// - Monte Carlo, i.i.d. 0/1 scores, n = 30 and 100, p in {0.5, 0.7, 0.9}: each seed's worst cell;
// - Monte Carlo, a bench of fixed, different difficulties (case i passes with probability falling linearly from
//   1 to 0.4, named easy-first), n = 10, 15, 30 and 100: each seed's miss rate, for the gate's fixed-bet bound
//   and for the adaptive betting bound it replaced (read in the seeded order of case positions).
// From the repo root (a few minutes):
//
//   node scripts/per-bench-coverage.ts [seeds] [replications]
import { missRateLimit } from "../packages/statistics/src/coverage-simulation.ts";
import { bettingLowerBound } from "../packages/statistics/src/bounds.ts";
import { bettingOrder, gateLowerBound, seededRandom } from "../packages/statistics/src/statistics.ts";

const seedCount = Number(process.argv[2] ?? 100);
const replications = Number(process.argv[3] ?? 1000);
const seeds = Array.from({ length: seedCount }, (_, i) => `bench-${i + 1}`);
type Bound = (values: readonly number[], seed: string) => number;
const gate: Bound = (values) => gateLowerBound(values, 0, "graded");
const adaptive: Bound = (values, seed) => bettingLowerBound(bettingOrder(values, seed));
const bound = gate;

function worstExactMiss(n: number, seed: string): number {
  const bounds: { ones: number; bound: number }[] = [];
  for (let mask = 0; mask < 1 << n; mask += 1) {
    const values = Array.from({ length: n }, (_, i) => (mask >> i) & 1);
    bounds.push({ ones: values.reduce((a, b) => a + b, 0), bound: bound(values, seed) });
  }
  let worst = 0;
  for (const b of new Set(bounds.map((entry) => entry.bound))) {
    if (b <= 0) continue;
    const p = b * (1 - 1e-12);
    worst = Math.max(
      worst,
      bounds.filter((entry) => entry.bound >= b).reduce((sum, { ones }) => sum + p ** ones * (1 - p) ** (n - ones), 0),
    );
  }
  return worst;
}

/** The share of `replications` draws of per-case pass probabilities `p` whose bound lands above their mean. */
function missRate(p: readonly number[], seed: string, stream: string, method: Bound = gate): number {
  const random = seededRandom(`per-bench:${stream}:${seed}`);
  const trueMean = p.reduce((a, b) => a + b, 0) / p.length;
  let misses = 0;
  for (let rep = 0; rep < replications; rep += 1)
    if (
      method(
        p.map((pi) => (random() < pi ? 1 : 0)),
        seed,
      ) > trueMean
    )
      misses += 1;
  return misses / replications;
}

function row(label: string, rates: readonly number[], limit: number): string {
  const sorted = [...rates].sort((a, b) => a - b);
  const pct = (x: number): string => `${(100 * x).toFixed(2)}%`;
  const over = rates.filter((rate) => rate > limit).length;
  return `| ${label} | ${rates.length} | ${pct(sorted[0]!)} | ${pct(sorted[Math.floor(sorted.length / 2)]!)} | ${pct(sorted.at(-1)!)} | ${over} (limit ${pct(limit)}) |`;
}

const lines = ["| bench | seeds | lowest | median | highest | seeds over the limit |", "|---|---|---|---|---|---|"];
for (const n of [10, 12])
  lines.push(
    row(
      `i.i.d. 0/1, n = ${n}, exact worst p`,
      seeds.map((seed) => worstExactMiss(n, seed)),
      0.05 + 1e-12,
    ),
  );
const mcLimit = missRateLimit(replications);
for (const n of [30, 100]) {
  const worst = seeds.slice(0, Math.min(seedCount, 40)).map((seed) =>
    Math.max(
      ...[0.5, 0.7, 0.9].map((p) =>
        missRate(
          Array.from({ length: n }, () => p),
          seed,
          `iid-${n}-${p}`,
        ),
      ),
    ),
  );
  lines.push(row(`i.i.d. 0/1, n = ${n}, worst of p = 0.5, 0.7, 0.9`, worst, mcLimit));
}
for (const n of [10, 15, 30, 100]) {
  const p = Array.from({ length: n }, (_, i) => 1 - (0.6 * i) / (n - 1));
  for (const [name, method] of [
    ["gate (fixed bets)", gate],
    ["adaptive betting, seeded order", adaptive],
  ] as const)
    lines.push(
      row(
        `easy-first difficulties, n = ${n}, ${name}`,
        seeds.map((seed) => missRate(p, seed, `easy-first-${n}`, method)),
        mcLimit,
      ),
    );
}
process.stdout.write(
  `${lines.join("\n")}\n\nMonte Carlo rows: ${replications} replications per seed and cell (the i.i.d. rows over the first ${Math.min(seedCount, 40)} seeds); exact rows enumerate every sequence.\n`,
);
