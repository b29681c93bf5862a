// One eval run, step by step: plan (prepare-run.ts), cache probe (cache-probe.ts), bounded execution
// (execute-units.ts, execute-case.ts), aggregation (run-report.ts), audit append (here).
import { basename } from "node:path";
import { appendRunRecord } from "@eval/audit-chain";
import { isOutOfSpace } from "@eval/errors";
import type { SigningKey } from "@eval/audit-chain";
import { probeCache } from "./cache-probe.ts";
import { verifyAfterAppend } from "./chain-checkpoint.ts";
import { executeUnits } from "./execute-units.ts";
import { prepareRun } from "./prepare-run.ts";
import type { PreparedRun } from "./prepare-run.ts";
import { claimRunDir, freeRecordReserve, markRecorded, recordReserveBytes, releaseRunDir } from "./run-owner.ts";
import { assembleReport } from "./run-report.ts";
import { RunTally } from "./run-tally.ts";
import type { RunEvalOptions, RunEvalResult, ScoredRun } from "./run-types.ts";

/**
 * Runs every selected case of a task class against a SUT and appends the run to the audit chain.
 * Throws (before any SUT call, writing nothing) on a tampered chain, a digest mismatch, or an
 * unknown/missing task class. Per-case problems never throw: they become block-severity failure
 * modes. A case starts only while the spend so far is below `maxCostUsd` (so 0 starts none); past it,
 * outstanding cases are cancelled and the report says `complete: false`.
 * The chain is verified from its checkpoint (chain-checkpoint.ts), before the run and after the append.
 * The result carries the task class the run loaded, so a caller never loads it again.
 */
export async function runEval(taskClassName: string, options: RunEvalOptions): Promise<RunEvalResult> {
  const scored = await scoreRun(taskClassName, options, { verifyChain: true });
  try {
    return await recordRun(scored, options.signingKey ?? null);
  } finally {
    // The record is in the chain (or the run failed and its directory is garbage): no longer ours.
    releaseRunDir(scored.runDir);
  }
}

async function recordRun(scored: ScoredRun, signingKey: SigningKey | null): Promise<RunEvalResult> {
  // Append to the chain: under its lock, linked to whatever the head is then.
  // The head pointer is trusted only when nothing touched the runs directory since the checkpoint.
  const append = () =>
    appendRunRecord(scored.report, {
      runsDir: scored.runsDir,
      hostFingerprint: scored.hostFingerprint,
      trustHeadPointer: scored.chain!.directoryUnchanged,
      onWarning: scored.onWarning,
      signingKey,
    });
  // A disk that filled during the run: the room kept since the claim is freed for the record.
  const { record, path, previous } = await append().catch((error: unknown) => {
    if (isOutOfSpace(error) && freeRecordReserve(scored.runDir)) return append();
    throw error;
  });
  // From here on the run is recorded: nothing may turn it into a failure (a CI retry would record it twice).
  markRecorded(scored.runDir, record.chain_hash);
  const chain = await verifyAfterAppend(
    { stateDir: scored.stateDir, runsDir: scored.runsDir, onWarning: scored.onWarning },
    scored.chain!,
    {
      previous: { records: previous.records, head: previous.head },
      chainHash: record.chain_hash,
      file: basename(path),
      complete: record.report.complete,
    },
  ).catch((error: unknown) => {
    scored.onWarning({
      code: "run.after_record",
      message: `the run is recorded (${basename(path)}), but checking the chain after it failed: ${(error as Error).message}; \`evalgate verify\` checks it`,
      details: { record: path },
    });
    return null;
  });
  const { caseResults, costCapExceeded, cancelled, runDir, taskClass, harnessError } = scored;
  const scoredIds = new Set(record.report.per_case.map((entry) => entry.case_id));
  const unscoredCaseIds = scored.cases.map((benchCase) => benchCase.case_id).filter((id) => !scoredIds.has(id));
  return {
    report: record.report,
    recordPath: path,
    caseResults,
    costCapExceeded,
    cancelled,
    runDir,
    chain,
    taskClass,
    unscoredCaseIds,
    harnessError,
  };
}

/**
 * Plans, probes the cache, executes and aggregates a run without appending it. With `verifyChain`
 * (a run on its way to the chain) a chain that does not verify stops it before any SUT call; a shard
 * (`verifyChain: false`) never reads a chain.
 */
export async function scoreRun(
  taskClassName: string,
  options: RunEvalOptions,
  mode: { readonly verifyChain: boolean },
): Promise<ScoredRun> {
  const plan = await prepareRun(taskClassName, options, mode);
  // The detail directory is this process's until the record lands: `gc` leaves it alone meanwhile.
  claimRunDir(plan.settings.runsDir, plan.runId, recordReserveBytes(plan.items.length));
  try {
    return await executeAndAggregate(plan, options);
  } catch (error) {
    releaseRunDir(plan.runDir);
    throw error;
  }
}

async function executeAndAggregate(plan: PreparedRun, options: RunEvalOptions): Promise<ScoredRun> {
  const tally = new RunTally(plan.items.length, plan.settings.concurrency, options);
  const misses = await probeCache(plan, tally, options);
  // The first progress line comes now, not after the first executed case.
  tally.emitProgress();
  const execution = await executeUnits(plan, misses, tally, options);
  const report = assembleReport(plan, tally, execution);
  // Every unit this run scored, in case and trial order (a shard's units include cases whose other trials ran elsewhere).
  const caseResults = plan.items.flatMap((item) => tally.results.get(item.id) ?? []);
  const { runId, runDir, hostFingerprint, taskClass, selectedCases, chain } = plan;
  const { runsDir, stateDir, onWarning } = plan.settings;
  return {
    report,
    caseResults,
    costCapExceeded: execution.costCapExceeded,
    cancelled: execution.cancelled,
    harnessError: execution.harnessError,
    runId,
    runDir,
    runsDir,
    stateDir,
    hostFingerprint,
    taskClass,
    cases: selectedCases,
    chain,
    onWarning,
  };
}
