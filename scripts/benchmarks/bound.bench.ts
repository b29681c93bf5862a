// The gate's lower bound against the alternatives, by simulation (packages/statistics/src/coverage-simulation.ts):
// for each score distribution and n in {5, 10, 15, 30, 100}, the miss rate (share of runs whose bound is above
// the true mean; a valid 95% bound misses <= 5%) and the mean bound (higher is tighter) of
// - the gate: Clopper-Pearson (Bernoulli only) and the betting bound (all), 2,000 replications;
// - BCa bootstrap (informational in reports), Student t, Wilson, and the gate rule before this one, on 500
//   replications with 2,000 (BCa) / 1,000 (old rule, as it ran) resamples to keep the run to minutes.
// Then the betting bound minus BCa on the same samples at n = 15 and 30, and the time of one betting and one
// Clopper-Pearson bound at n = 10,000 against sorting the same 10,000 scores (same-run baseline), and one
// runStatistics call on 1,000 cases (goal < 200 ms; BCa's 10,000 resamples dominate it).
// Rows are ok = false when the gate misses more than 5% + 3 SE.
import {
  bettingLowerBound,
  clopperPearsonLowerBound,
  studentTLowerBound,
} from "../../packages/statistics/src/bounds.ts";
import {
  bettingMethod,
  type BoundMethod,
  clopperPearsonMethod,
  COVERAGE_NS,
  missRateLimit,
  type MethodOutcome,
  SCORE_DISTRIBUTIONS,
  simulateCell,
} from "../../packages/statistics/src/coverage-simulation.ts";
import {
  bcaLowerBound,
  runStatistics,
  seededRandom,
  wilsonLowerBound,
} from "../../packages/statistics/src/statistics.ts";
import type { BenchRow } from "../bench.ts";
import { median } from "./timing.ts";

const GATE_REPLICATIONS = 2000;
const SLOW_REPLICATIONS = 500;
const BCA_RESAMPLES = 2000;

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const bca: BoundMethod = (values) => {
  const bound = bcaLowerBound(values, { seed: values.join(","), resamples: BCA_RESAMPLES });
  return bound === null ? null : Math.min(bound, mean(values));
};
/** Wilson on the pass count; pass = score >= 0.5 (for Bernoulli scores, the successes). */
const wilson: BoundMethod = (values) => wilsonLowerBound(values.filter((v) => v >= 0.5).length, values.length);
const studentT: BoundMethod = (values) => studentTLowerBound(values);
/** The gate rule before the betting bound: Wilson if >= 80% of scores are 0/1, the minimum if all are equal, else BCa (1000). */
const oldRule: BoundMethod = (values) => {
  if (values.filter((v) => v === 0 || v === 1).length >= 0.8 * values.length) return wilson(values);
  if (values.every((v) => v === values[0])) return values[0]!;
  return Math.min(bcaLowerBound(values, { seed: values.join(","), resamples: 1000 })!, mean(values));
};
/** Betting minus BCa on the same sample (null where BCa is undefined); only its mean is read. */
const bettingMinusBca: BoundMethod = (values) => {
  const b = bca(values);
  return b === null ? null : bettingLowerBound(values) - b;
};

const percent = (share: number) => `${(100 * share).toFixed(1)}%`;
function describe(name: string, outcome: MethodOutcome, replications: number): string {
  const undefinedShare =
    outcome.defined < replications ? ` (undefined in ${percent(1 - outcome.defined / replications)})` : "";
  return `${name} ${percent(outcome.misses / Math.max(1, outcome.defined))} / ${outcome.meanBound.toFixed(3)}${undefinedShare}`;
}

function coverageRows(): BenchRow[] {
  const rows: BenchRow[] = [];
  const limit = missRateLimit(GATE_REPLICATIONS);
  for (const distribution of SCORE_DISTRIBUTIONS) {
    for (const n of COVERAGE_NS) {
      const gateMethods: Record<string, BoundMethod> = distribution.bernoulli
        ? { CP: clopperPearsonMethod, betting: bettingMethod }
        : { betting: bettingMethod };
      const gate = simulateCell(distribution, n, GATE_REPLICATIONS, gateMethods, "bench-gate");
      const slow = simulateCell(
        distribution,
        n,
        SLOW_REPLICATIONS,
        { BCa: bca, t: studentT, Wilson: wilson, "old rule": oldRule, diff: bettingMinusBca },
        "bench-slow",
      );
      const worst = Math.max(...Object.values(gate.methods).map((m) => m.misses / GATE_REPLICATIONS));
      const gateText = Object.entries(gate.methods).map(([name, m]) => describe(name, m, GATE_REPLICATIONS));
      const slowText = ["BCa", "t", "Wilson", "old rule"].map((name) =>
        describe(name, slow.methods[name]!, SLOW_REPLICATIONS),
      );
      rows.push({
        benchmark: "bound",
        measure: `miss rate / mean bound, ${distribution.name} (mean ${distribution.mean.toFixed(3)}), n = ${n} (gate: ${GATE_REPLICATIONS} reps; others: ${SLOW_REPLICATIONS} reps, BCa ${BCA_RESAMPLES} resamples)`,
        value: [...gateText, ...slowText].join("; "),
        goal: `gate <= ${percent(limit)}`,
        ok: worst <= limit,
      });
      if (n === 15 || n === 30) {
        rows.push({
          benchmark: "bound",
          measure: `betting - BCa, mean over the same samples, ${distribution.name}, n = ${n}`,
          value: slow.methods.diff!.meanBound.toFixed(3),
        });
      }
    }
  }
  return rows;
}

function timingRows(): BenchRow[] {
  const random = seededRandom("bound-bench-timing");
  const values = Array.from({ length: 10_000 }, () => random());
  const successes = values.filter((v) => v >= 0.5).length;
  const time = (f: () => unknown) => {
    const start = performance.now();
    f();
    return performance.now() - start;
  };
  const baseline: number[] = [];
  const betting: number[] = [];
  const cp: number[] = [];
  for (let round = 0; round < Number(process.env.BENCH_ROUNDS ?? 7); round += 1) {
    baseline.push(time(() => [...values].sort((a, b) => a - b)));
    betting.push(time(() => bettingLowerBound(values)));
    cp.push(time(() => clopperPearsonLowerBound(successes, values.length)));
  }
  const [b, bet, c] = [median(baseline), median(betting), median(cp)];
  const cases = values.slice(0, 1000).map((score) => ({ score, passed: score >= 0.5 }));
  const stats = median(
    Array.from({ length: Number(process.env.BENCH_ROUNDS ?? 7) }, () =>
      time(() => runStatistics(cases, { scoreKind: "graded", seed: "bench", orderSeed: "bench" })),
    ),
  );
  return [
    { benchmark: "bound", measure: "sort of 10,000 scores, baseline (median of 7)", value: `${b.toFixed(2)} ms` },
    {
      benchmark: "bound",
      measure: "betting bound, n = 10,000 (median of 7)",
      value: `${bet.toFixed(2)} ms (${(bet / b).toFixed(1)}x the sort)`,
    },
    {
      benchmark: "bound",
      measure: "Clopper-Pearson bound, n = 10,000 (median of 7)",
      value: `${c.toFixed(3)} ms (${(c / b).toFixed(2)}x the sort)`,
    },
    {
      benchmark: "bound",
      measure: "runStatistics, 1,000 graded cases, BCa 10,000 resamples (median of 7)",
      value: `${stats.toFixed(0)} ms`,
      goal: "< 200 ms",
      ok: stats < 200,
    },
  ];
}

export default async function boundBench(): Promise<BenchRow[]> {
  const start = performance.now();
  const rows = [...timingRows(), ...coverageRows()];
  rows.push({
    benchmark: "bound",
    measure: `total time (gate ${GATE_REPLICATIONS} replications; BCa, t, Wilson, old rule ${SLOW_REPLICATIONS} replications, BCa ${BCA_RESAMPLES} resamples)`,
    value: `${((performance.now() - start) / 1000).toFixed(0)} s`,
  });
  return rows;
}
