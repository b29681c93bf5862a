// `evalgate merge`: shard bundles of one plan become one run, with the statistics a one-machine run
// of the plan computes, appended as exactly one record.
import { mkdir } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import {
  appendRunRecord,
  ChainTampered,
  getHostFingerprint,
  latestRun,
  normalizeExpectedHead,
  readChainHead,
  withAppendLock,
} from "@eval/audit-chain";
import type { SigningKey, VerifyResult } from "@eval/audit-chain";
import { EvalError, ignoreWarnings, ioError } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import type {
  AnyBenchRunReport,
  BenchRunReportInput,
  MeteredUsage,
  RunPlan,
  Selection,
  ShardManifest,
  ShardUnit,
} from "@eval/models";
import { caseDetailFile, DEFAULT_STATE_DIR, RUN_DIR_NAMES, stateLayout } from "@eval/state-layout";
import { writeDetailFile } from "./case-detail.ts";
import { trialCacheKey } from "./trials.ts";
import { buildRunReport } from "./aggregate.ts";
import { resourceLimitsOf } from "./run-report.ts";
import type { RunFacts, ScoredCase } from "./aggregate.ts";
import { readBundle } from "./bundle.ts";
import type { ReadBundle } from "./bundle.ts";
import { verifyAfterAppend, verifyChainForRun } from "./chain-checkpoint.ts";
import { markRecorded } from "./run-owner.ts";
import { planUnits } from "./shard.ts";
import type { PlanUnit } from "./shard.ts";
import { digestOf } from "./sut.ts";

export interface MergeOptions {
  /** Default `.evalgate`. */
  readonly stateDir?: string;
  /** Record a run with missing units as incomplete instead of refusing (it never supports a verdict). */
  readonly allowIncomplete?: boolean;
  /** The chain's head must still be this (EVAL_CHAIN_MOVED otherwise). */
  readonly expectHead?: string;
  readonly onWarning?: WarningSink;
  /**
   * Signs the merged record. With a key, signing is configured: every bundle must be signed by this key or
   * one of `trustedSigners`, or the merge refuses it (EVAL_BUNDLE_TAMPERED).
   */
  readonly signingKey?: SigningKey | null;
  /** Key ids (SHA-256 of the public key) whose bundle signatures are accepted: trust-tiers.yaml's signers. */
  readonly trustedSigners?: readonly string[];
}

export interface MergeResult {
  readonly plan: RunPlan;
  readonly report: AnyBenchRunReport;
  readonly recordPath: string;
  /** False when this plan's run (with these units) was already in the chain: nothing was appended. */
  readonly appended: boolean;
  readonly missing: readonly PlanUnit[];
  /** Units found in more than one bundle, identical each time. */
  readonly duplicates: number;
  readonly chain: VerifyResult;
}

const unitKey = (unit: { case_id: string; trial: number }): string => `${unit.case_id}#t${unit.trial}`;

/** What two runs of one unit must agree on: the result, not how long it took or whether it was cached. */
function resultOf(unit: ShardUnit): string {
  return JSON.stringify([
    unit.cache_key,
    unit.score.passed,
    unit.score.score,
    unit.score.breakdown,
    unit.score.failure_modes,
  ]);
}

/**
 * With signing configured, a bundle counts only when a trusted key signed its manifest (readBundle checked the
 * signature itself): an unsigned bundle could have been rewritten, units and digests together, by anyone.
 */
function assertBundlesSigned(bundles: readonly ReadBundle[], trusted: ReadonlySet<string>): void {
  for (const bundle of bundles) {
    const keyId = bundle.manifest.signature?.key_id;
    if (keyId === undefined)
      throw new EvalError(
        "EVAL_BUNDLE_TAMPERED",
        `bundle ${bundle.dir} is unsigned, and this merge signs: only signed bundles are merged`,
        {
          hint: "run each shard with the signing key (--signing-key or EVALGATE_SIGNING_KEY)",
          details: { bundle: bundle.dir },
        },
      );
    if (!trusted.has(keyId))
      throw new EvalError(
        "EVAL_BUNDLE_TAMPERED",
        `bundle ${bundle.dir} is signed by ${keyId}, which is neither this merge's key nor a signer declared in the trust-tiers file`,
        {
          hint: "declare the shard's key under signers: in the trust-tiers file (a reviewed change)",
          details: { bundle: bundle.dir, key_id: keyId },
        },
      );
  }
}

/** Every bundle must carry the same plan; the first that does not is named with its plan. */
function samePlan(bundles: readonly ReadBundle[]): RunPlan {
  const first = bundles[0]!;
  for (const bundle of bundles.slice(1)) {
    if (bundle.plan.plan_id !== first.plan.plan_id) {
      throw new EvalError(
        "EVAL_PLAN_MISMATCH",
        `bundles from different plans: ${bundle.dir} is plan ${bundle.plan.plan_id}, ${first.dir} is plan ${first.plan.plan_id}`,
      );
    }
  }
  return first.plan;
}

/** The units, each once: identical duplicates collapse (the first in shard order is kept), conflicting ones are refused. */
function collectUnits(
  plan: RunPlan,
  bundles: readonly ReadBundle[],
): { units: Map<string, ShardUnit>; duplicates: number } {
  const keyOf = new Map(plan.cases.map((c) => [c.case_id, c.cache_key]));
  const units = new Map<string, { unit: ShardUnit; dir: string }>();
  let duplicates = 0;
  const ordered = [...bundles].sort(
    (a, b) => a.manifest.shard.index - b.manifest.shard.index || a.manifest.shard.count - b.manifest.shard.count,
  );
  for (const bundle of ordered) {
    for (const unit of bundle.units) {
      const caseKey = keyOf.get(unit.case_id);
      if (caseKey === undefined || unit.trial >= plan.trials || trialCacheKey(caseKey, unit.trial) !== unit.cache_key) {
        throw new EvalError(
          "EVAL_PLAN_MISMATCH",
          `bundle ${bundle.dir}: unit ${unit.case_id} trial ${unit.trial} is not a unit of plan ${plan.plan_id}`,
        );
      }
      const seen = units.get(unitKey(unit));
      if (seen === undefined) units.set(unitKey(unit), { unit, dir: bundle.dir });
      else if (resultOf(seen.unit) === resultOf(unit)) duplicates += 1;
      else {
        throw new EvalError(
          "EVAL_UNIT_CONFLICT",
          `unit ${unit.case_id} trial ${unit.trial} has different results in ${seen.dir} (score ${seen.unit.score.score}) and ${bundle.dir} (score ${unit.score.score})`,
          {
            details: { case_id: unit.case_id, trial: unit.trial, bundles: [seen.dir, bundle.dir] },
          },
        );
      }
    }
  }
  return { units: new Map([...units].map(([key, value]) => [key, value.unit])), duplicates };
}

function describeMissing(missing: readonly PlanUnit[]): string {
  const shown = missing.slice(0, 10).map((unit) => `${unit.case_id}#t${unit.trial}`);
  return `${shown.join(", ")}${missing.length > 10 ? `, and ${missing.length - 10} more` : ""}`;
}

/** The selection a one-machine run of the plan records (plans cover the whole task class). */
function planSelection(plan: RunPlan): Selection {
  const ids = plan.cases.map((c) => c.case_id).sort();
  return {
    scope: ids.length === plan.task_class_case_count ? "full" : "subset",
    filter: null,
    task_class_case_count: plan.task_class_case_count,
    selected_case_count: ids.length,
    selected_case_ids_digest: digestOf("evalgate.case_selection.v1", ids),
  };
}

/**
 * Merges shard bundles into one run and appends it. Refuses, writing nothing: an edited bundle
 * (EVAL_BUNDLE_TAMPERED), bundles of different plans (EVAL_PLAN_MISMATCH), a unit with two different
 * results (EVAL_UNIT_CONFLICT), missing units without `allowIncomplete` (EVAL_UNITS_MISSING), a chain
 * that does not verify (EVAL_CHAIN_TAMPERED) or whose head is not `expectHead` (EVAL_CHAIN_MOVED).
 * Idempotent: when the chain already holds this plan's run with the same units, nothing is appended.
 */
export async function mergeBundles(dirs: readonly string[], options: MergeOptions = {}): Promise<MergeResult> {
  if (dirs.length === 0) throw new EvalError("EVAL_USAGE", "merge needs at least one bundle directory");
  const onWarning = options.onWarning ?? ignoreWarnings;
  const bundles: ReadBundle[] = [];
  for (const dir of dirs) bundles.push(await readBundle(dir));
  if (options.signingKey != null)
    assertBundlesSigned(bundles, new Set([options.signingKey.keyId, ...(options.trustedSigners ?? [])]));
  const plan = samePlan(bundles);
  const { units, duplicates } = collectUnits(plan, bundles);
  const missing = planUnits(plan).filter((unit) => !units.has(unitKey(unit)));
  if (missing.length > 0 && options.allowIncomplete !== true) {
    throw new EvalError(
      "EVAL_UNITS_MISSING",
      `${missing.length} of ${planUnits(plan).length} units of plan ${plan.plan_id} are in no bundle: ${describeMissing(missing)}`,
      {
        details: { missing: missing.map(unitKey) },
      },
    );
  }
  const stateDir = resolve(options.stateDir ?? DEFAULT_STATE_DIR);
  const runsDir = stateLayout(stateDir).runs;
  const before = await verifyChainForRun({ stateDir, runsDir, onWarning });
  if (!before.ok) throw new ChainTampered(before.firstBad!, runsDir);
  // A case counts once every one of its trials is present, as in a one-machine run.
  const scored: ScoredCase[] = plan.cases.flatMap((c) => {
    const trials = Array.from({ length: plan.trials }, (_, trial) => units.get(unitKey({ case_id: c.case_id, trial })));
    if (trials.some((unit) => unit === undefined)) return [];
    return [
      {
        case_id: c.case_id,
        curation_class: c.curation_class,
        case_digest: c.case_digest,
        trials: trials.map((unit) => ({ cacheKey: unit!.cache_key, score: unit!.score, ...meteredOf(unit!) })),
      },
    ];
  });
  const runId = `plan-${plan.plan_id.slice("blake3:".length)}`;
  const hostFingerprint = await getHostFingerprint(stateDir);
  const reportOf = (prevHash: string): BenchRunReportInput =>
    mergedReport(plan, bundles, { runId, hostFingerprint, incomplete: missing.length > 0, prevHash }, scored);
  // The head check, the "already merged" check, the details and the append happen under one lock: two
  // merges of the same bundles append once, and `gc` never sees the details before their record.
  const outcome = await withAppendLock(
    runsDir,
    async (lock) => {
      const head = await readChainHead(runsDir);
      if (options.expectHead !== undefined && normalizeExpectedHead(options.expectHead) !== head.head) {
        throw new EvalError(
          "EVAL_CHAIN_MOVED",
          `the chain moved: its head is ${head.head}, not the expected ${normalizeExpectedHead(options.expectHead)}`,
          { details: { head: head.head } },
        );
      }
      const previous = await findMergedRun(
        runsDir,
        plan,
        missing.length === 0 ? runId : `partial:${runId}`,
        scored.length,
      );
      if (previous !== null) return { appended: false as const, ...previous };
      await writeDetails(join(runsDir, runId), units);
      const appended = await appendRunRecord(reportOf(head.head), {
        runsDir,
        hostFingerprint,
        lock,
        signingKey: options.signingKey ?? null,
      });
      markRecorded(join(runsDir, runId), appended.record.chain_hash);
      return { appended: true as const, ...appended };
    },
    { onWarning },
  );
  if (!outcome.appended)
    return {
      plan,
      report: outcome.report,
      recordPath: outcome.path,
      appended: false,
      missing,
      duplicates,
      chain: before,
    };
  const { record, path, previous: linked } = outcome;
  const chain = await verifyAfterAppend({ stateDir, runsDir, onWarning }, before, {
    previous: { records: linked.records, head: linked.head },
    chainHash: record.chain_hash,
    file: basename(path),
    complete: record.report.complete,
  });
  return { plan, report: record.report, recordPath: path, appended: true, missing, duplicates, chain };
}

/**
 * The limits the shards ran under, when every shard recorded the same (a one-machine run records them);
 * nothing when they differ (machines with different memory get different defaults) or one did not say.
 */
function sharedLimitValues(manifests: readonly ShardManifest[]): Pick<RunFacts, "resourceLimitValues"> {
  const values = manifests.map((manifest) => manifest.resource_limit_values);
  const first = values[0];
  if (first === undefined || values.some((value) => !isDeepStrictEqual(value, first))) return {};
  return { resourceLimitValues: first };
}

/** The merged run's report, as a one-machine run of the plan records it. */
function mergedReport(
  plan: RunPlan,
  bundles: readonly ReadBundle[],
  facts: { runId: string; hostFingerprint: string; incomplete: boolean; prevHash: string },
  scored: readonly ScoredCase[],
): BenchRunReportInput {
  const manifests = bundles.map((bundle) => bundle.manifest);
  return buildRunReport(
    {
      runId: facts.runId,
      taskClass: plan.task_class,
      scoreKind: plan.score_kind,
      harnessVersion: plan.harness_version,
      sut: plan.sut,
      rubricDigest: plan.rubric_digest,
      corpusDigest: plan.cassette_corpus_digest,
      hostFingerprint: facts.hostFingerprint,
      isolationClass: plan.isolation_class,
      sutIsolation: plan.sut_isolation,
      resourceLimits: resourceLimitsOf(plan.isolation_class, plan.sut_isolation),
      ...sharedLimitValues(manifests),
      startedAt: manifests.map((m) => m.started_at).sort()[0]!,
      endedAt: manifests
        .map((m) => m.ended_at)
        .sort()
        .at(-1)!,
      selection: planSelection(plan),
      caseCount: plan.cases.length,
      trials: plan.trials,
      incompleteReason: facts.incomplete ? "units_missing" : null,
      prevHash: facts.prevHash,
    },
    scored,
  );
}

/** This plan's run already in the chain with as many scored units, or null. */
async function findMergedRun(
  runsDir: string,
  plan: RunPlan,
  runId: string,
  scored: number,
): Promise<{ report: AnyBenchRunReport; path: string } | null> {
  const found = await latestRun(
    runsDir,
    plan.task_class,
    (report) => report.run_id === runId && report.per_case.length === scored,
  );
  return found === null ? null : { report: found.record.report, path: join(runsDir, found.file) };
}

/** Per-case details under `runs/<run-id>/cases/`, as a one-machine run writes them (executed units only). */
async function writeDetails(runDir: string, units: ReadonlyMap<string, ShardUnit>): Promise<void> {
  const casesDir = join(runDir, RUN_DIR_NAMES.cases);
  await mkdir(casesDir, { recursive: true }).catch((error: unknown) => {
    throw ioError(error, "cannot create", casesDir);
  });
  for (const unit of units.values()) {
    if (unit.detail === null) continue;
    // As a run writes them: a merge killed mid-write leaves whole files or none, and a later merge replaces them whole.
    writeDetailFile(
      join(casesDir, caseDetailFile(unit.case_id, unit.trial)),
      `${JSON.stringify(unit.detail, null, 2)}\n`,
    );
  }
}

/** What the bridge metered for a unit the shard executed (its detail says; a cache hit has none). */
function meteredOf(unit: ShardUnit): { metered?: MeteredUsage } {
  const metered = unit.cache_hit ? undefined : unit.detail?.metered;
  return metered === undefined ? {} : { metered };
}
