// Prints the coverage table of the paired bound (docs/reliability.md): for each pair distribution and n in
// {10, 15, 30}, the miss rate over 2,000 simulated benches (a valid one-sided 95% bound misses <= 5%; the
// test allows 5% + 3 SE = 6.46%) and the mean bound against the true mean difference. From the repo root:
//
//   node scripts/paired-coverage.ts [replications]
import { missRateLimit } from "../packages/statistics/src/coverage-simulation.ts";
import {
  PAIR_DISTRIBUTIONS,
  PAIRED_COVERAGE_NS,
  simulatePairedCell,
} from "../packages/statistics/src/paired-coverage-simulation.ts";

const replications = Number(process.argv[2] ?? 2000);
const lines = ["| pairs (baseline vs candidate) | true diff | n | miss rate | mean bound |", "|---|---|---|---|---|"];
for (const distribution of PAIR_DISTRIBUTIONS) {
  for (const n of PAIRED_COVERAGE_NS) {
    const cell = simulatePairedCell(distribution, n, replications);
    const rate = cell.misses / replications;
    const flag = rate > missRateLimit(replications) ? " (OVER LIMIT)" : "";
    lines.push(
      `| ${distribution.name} | ${distribution.meanDifference.toFixed(3)} | ${n} | ${(100 * rate).toFixed(2)}%${flag} | ${cell.meanBound.toFixed(3)} |`,
    );
  }
}
process.stdout.write(
  `${lines.join("\n")}\n\n${replications} replications per cell; limit ${(100 * missRateLimit(replications)).toFixed(2)}%\n`,
);
