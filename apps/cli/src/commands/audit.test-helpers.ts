// Builds real audit chains for the verify and promote-verdict command tests.
import { join } from "node:path";
import { mkdir, writeFile } from "node:fs/promises";
import { appendRunRecord, buildChainRecord, getHostFingerprint, readChainHead } from "@eval/audit-chain";
import type { BenchRunReportInput } from "@eval/models";
import { caseGateStatistics } from "@eval/statistics";
import { legacyRunReport, runReport } from "@eval/test-utils";

export interface RunShape {
  readonly taskClass?: string;
  readonly lowerBound?: number;
  readonly passed?: number;
  readonly heldOut?: number;
  readonly cases?: number;
  readonly complete?: boolean;
  /** The task class's size, when this run scored only `cases` of it (a `--cases` subset). */
  readonly subsetOf?: number;
  /** Record it as a report v1 would have been (written directly, as an older evalgate did). */
  readonly legacy?: boolean;
}

/**
 * A valid report of `cases` cases (the first `heldOut` held out, the first `passed` passing) whose figures are
 * the ones its per-case scores give (the gate recomputes them: a stored figure that disagrees is tampering).
 * `lowerBound` only shapes a legacy (v1) report, whose figures the gate never judges.
 */
function reportOf(shape: RunShape, prevHash: string, host: string, runId: string): BenchRunReportInput {
  const { taskClass, lowerBound, passed, heldOut, cases, complete, subsetOf } = shape;
  const report = runReport({
    taskClass,
    lowerBound,
    passed,
    heldOut,
    cases,
    complete,
    subsetOf,
    prevHash,
    host,
    runId,
  });
  const figures = caseGateStatistics(
    report.per_case.map((entry) => [entry.score]),
    { scoreKind: report.score_kind, trials: 1, orderSeed: report.selection.selected_case_ids_digest },
  );
  const passHatK = figures.n === 0 ? 0 : figures.passedCount / figures.n;
  return {
    ...report,
    mean_score: figures.mean,
    score_stddev: figures.stddev,
    lower_bound_95: figures.lowerBound95,
    passed_count: figures.passedCount,
    reliability: { ...report.reliability, pass_at_1: passHatK, pass_at_k: passHatK, pass_hat_k: passHatK },
  };
}

/** Appends one run per shape to `<stateDir>/runs` through the real API; returns the record paths. */
export async function recordRuns(stateDir: string, shapes: readonly RunShape[]): Promise<string[]> {
  const runsDir = join(stateDir, "runs");
  const host = await getHostFingerprint(stateDir);
  const paths: string[] = [];
  for (const [index, shape] of shapes.entries()) {
    const head = await readChainHead(runsDir);
    const report = reportOf(shape, head.head, host, `run-${index}`);
    if (shape.legacy === true) {
      const recordedAt = new Date(Date.parse(head.recordedAt ?? "2026-01-01T00:00:00.000Z") + 1000).toISOString();
      const placement = { prevHash: head.head, sequence: head.nextSequence, recordedAt, hostFingerprint: host };
      await mkdir(runsDir, { recursive: true, mode: 0o700 });
      const built = await buildChainRecord(legacyRunReport(report) as unknown as BenchRunReportInput, placement);
      await writeFile(join(runsDir, built.fileName), built.text, { mode: 0o600 });
      paths.push(join(runsDir, built.fileName));
      continue;
    }
    const { path } = await appendRunRecord(report, { runsDir, hostFingerprint: host });
    paths.push(path);
  }
  return paths;
}
