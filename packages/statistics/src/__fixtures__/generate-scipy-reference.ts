// Regenerates scipy-reference.json, the scipy values statistics.test.ts and bounds.test.ts compare against, so
// the tests need no Python. Needs a python3 with scipy (pip install scipy); from the repo root:
//
//   node packages/statistics/src/__fixtures__/generate-scipy-reference.ts [path/to/python3]
//
// (default: $EVALGATE_PYTHON, else python3). Rerun it whenever bootstrapMeans or seededRandom change: the
// exact BCa check stores only each dataset's seed and resample count, and the test regenerates our bootstrap
// distribution from them, so a changed sampler fails that check until the fixture is regenerated.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { bootstrapMeans, seededRandom } from "../statistics.ts";

const python = process.argv[2] ?? process.env.EVALGATE_PYTHON ?? "python3";

const BCA_DATASETS: number[][] = [
  [0.2, 0.9, 0.75, 1.0, 0.4, 0.85, 0.6, 0.95, 0.3, 0.8],
  [0.5, 0.55, 0.6, 0.52, 0.58],
  [0.1, 0.95, 0.97, 0.99, 0.92, 0.88, 0.9, 0.93, 0.96, 0.91, 0.94, 0.89],
  [0.33, 0.67],
  Array.from({ length: 40 }, (_, i) => ((i * 37) % 100) / 100),
  [1, 1, 1, 0, 1, 1, 0.85, 1, 0.15, 1, 1, 0, 1, 0.85, 1],
];
const BCA_EXACT_RESAMPLES = [1000, 10_000];
/** The independent check's resamples on our side (scipy's side always draws 200,000). */
const BCA_INDEPENDENT_RESAMPLES = 10_000;

/** (k, n) pairs for Clopper-Pearson: both ends, near both ends, the middle, odd spots, n = 1 .. 10,000. */
function clopperPearsonPairs(): Array<{ k: number; n: number; alpha: number }> {
  const pairs: Array<{ k: number; n: number; alpha: number }> = [];
  for (const n of [1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100, 250, 1000, 10_000]) {
    const ks = new Set([0, 1, 2, Math.floor(n / 3), Math.floor(n / 2), Math.floor((9 * n) / 10), n - 2, n - 1, n].filter((k) => k >= 0 && k <= n));
    for (const k of ks) pairs.push({ k, n, alpha: 0.05 });
  }
  for (const alpha of [0.01, 0.1, 0.25]) for (const [k, n] of [[3, 10], [29, 30], [9_000, 10_000], [10, 10]] as const) pairs.push({ k, n, alpha });
  return pairs;
}

const request = {
  bca_exact: BCA_EXACT_RESAMPLES.flatMap((resamples) =>
    BCA_DATASETS.map((data, i) => ({ data, seed: `dataset-${i}-${resamples}`, resamples })),
  ),
  bca_independent: BCA_DATASETS.map((data, i) => ({ data, seed: `independent-${i}`, resamples: BCA_INDEPENDENT_RESAMPLES })),
  clopper_pearson: clopperPearsonPairs(),
  student_t: [1, 2, 3, 4, 5, 9, 14, 29, 99, 999, 9_999].flatMap((dof) => [0.05, 0.01, 0.2].map((alpha) => ({ dof, alpha }))),
  student_t_bounds: BCA_DATASETS.map((data) => ({ data, alpha: 0.05 })),
};
const toScipy = {
  ...request,
  bca_exact: request.bca_exact.map(({ data, seed, resamples }) => ({ data, distribution: bootstrapMeans(data, resamples, seededRandom(seed)) })),
};
const answer = JSON.parse(execFileSync(python, [join(import.meta.dirname, "scipy-reference.py")], { input: JSON.stringify(toScipy), encoding: "utf8", maxBuffer: 1 << 28 }));

const zip = <T extends object>(items: readonly T[], values: ReadonlyArray<number | null>, key: string) => items.map((item, i) => ({ ...item, [key]: values[i] }));
const fixture = {
  generated_by: "packages/statistics/src/__fixtures__/generate-scipy-reference.ts",
  scipy_version: answer.scipy_version,
  numpy_version: answer.numpy_version,
  bca_exact: zip(request.bca_exact, answer.bca_exact, "scipy_lower"),
  bca_independent: zip(request.bca_independent, answer.bca_independent, "scipy_lower_200000"),
  clopper_pearson: zip(request.clopper_pearson, answer.clopper_pearson, "scipy_lower"),
  student_t: zip(request.student_t, answer.student_t, "scipy_quantile"),
  student_t_bounds: zip(request.student_t_bounds, answer.student_t_bounds, "scipy_lower"),
};
const out = join(import.meta.dirname, "scipy-reference.json");
writeFileSync(out, `${JSON.stringify(fixture, null, 1)}\n`);
console.log(`wrote ${out} (scipy ${answer.scipy_version})`);
