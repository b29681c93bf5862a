// Step 4 of a run: aggregate what finished into the unsigned report.
import { limitMechanism } from "@eval/sandbox";
import { GENESIS_PREV_HASH } from "@eval/models";
import type { BenchCase, BenchRunReportInput } from "@eval/models";
import { buildRunReport } from "./aggregate.ts";
import type { Execution } from "./execute-units.ts";
import type { PreparedRun } from "./prepare-run.ts";
import type { RunTally } from "./run-tally.ts";
import type { CaseRunResult } from "./run-types.ts";
import { trialUnitId } from "./trials.ts";
import { limitValues, sandboxLimits } from "./sandbox-limits.ts";

/**
 * How this machine limits a run's sandboxed processes (its report's `resource_limits`): the mechanism when
 * the rubric or the SUT runs sandboxed, else none. A merge records what the merging machine would use.
 */
export function resourceLimitsOf(isolationClass: string, sutIsolation: string): "cgroup" | "rlimit" | "none" {
  return isolationClass.startsWith("bwrap") || sutIsolation.startsWith("bwrap") ? limitMechanism() : "none";
}

/** Why a run is incomplete, or null when every unit finished. */
function incompleteReason(
  plan: PreparedRun,
  tally: RunTally,
  execution: Execution,
): "cost_cap" | "interrupted" | "cancelled" | "harness_error" | null {
  if (execution.harnessError !== null) return "harness_error";
  const complete = !execution.costCapExceeded && !execution.cancelled && tally.results.size === plan.items.length;
  if (complete) return null;
  return execution.costCapExceeded ? "cost_cap" : execution.interrupted ? "interrupted" : "cancelled";
}

/** The unsigned report, aggregated in case_id order over the cases whose every trial finished. */
export function assembleReport(plan: PreparedRun, tally: RunTally, execution: Execution): BenchRunReportInput {
  const { taskClass, trials, settings } = plan;
  const ordered = plan.cases
    .map((benchCase) => ({
      benchCase,
      trialResults: Array.from({ length: trials }, (_, trial) =>
        tally.results.get(trialUnitId(benchCase.case_id, trial)),
      ),
    }))
    .filter((entry): entry is { benchCase: BenchCase; trialResults: CaseRunResult[] } =>
      entry.trialResults.every((r) => r !== undefined),
    );
  return buildRunReport(
    {
      runId: plan.runId,
      taskClass: taskClass.name,
      scoreKind: taskClass.scoreKind,
      harnessVersion: settings.harnessVersion,
      sut: plan.sut,
      rubricDigest: taskClass.rubricDigest,
      corpusDigest: plan.corpusDigest,
      hostFingerprint: plan.hostFingerprint,
      isolationClass: plan.isolationClass,
      sutIsolation: plan.sutIsolation,
      resourceLimits: resourceLimitsOf(plan.isolationClass, plan.sutIsolation),
      resourceLimitValues: {
        sut: plan.sut.limits === undefined ? null : limitValues(plan.sut.limits),
        rubric: plan.isolationClass.startsWith("bwrap") ? limitValues(sandboxLimits(taskClass.limits?.rubric)) : null,
      },
      startedAt: plan.startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      selection: plan.selection,
      caseCount: plan.cases.length,
      trials,
      incompleteReason: incompleteReason(plan, tally, execution),
      prevHash: plan.chain?.head ?? GENESIS_PREV_HASH,
      ...(plan.rescoreOf === null ? {} : { rescoreOf: plan.rescoreOf }),
    },
    ordered.map(({ benchCase, trialResults }) => ({
      case_id: benchCase.case_id,
      curation_class: benchCase.curation_class,
      case_digest: benchCase.case_digest,
      trials: trialResults.map((result) => ({
        cacheKey: result.cacheKey,
        score: result.score,
        ...(result.metered === undefined ? {} : { metered: result.metered }),
      })),
    })),
  );
}
