// `evalgate run --shard i/N`: a deterministic part of a plan's units, run on any machine, written as a
// bundle. A shard never reads or appends to a chain and never writes a verdict.
import { readFile } from "node:fs/promises";
import { EvalError } from "@eval/errors";
import { stateLayout, transcriptFile } from "@eval/state-layout";
import type { RunPlan, SystemUnderTest } from "@eval/models";
import { writeBundle } from "./bundle.ts";
import type { BundleUnit } from "./bundle.ts";
import { planDifference, planWithSut } from "./plan.ts";
import type { PlanOptions } from "./plan.ts";
import { scoreRun } from "./run-eval.ts";
import { releaseRunDir } from "./run-owner.ts";
import type { RunEvalOptions, ScoredRun, SutChooser } from "./run-types.ts";
import { trialUnitId } from "./trials.ts";

export interface ShardSpec {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
}

export interface PlanUnit {
  readonly case_id: string;
  readonly trial: number;
}

/** Parses `i/N` (1 <= i <= N); anything else is a usage error. */
export function parseShard(text: string): ShardSpec {
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(text.trim());
  const index = match === null ? Number.NaN : Number(match[1]);
  const count = match === null ? Number.NaN : Number(match[2]);
  if (match === null || count < 1 || index < 1 || index > count) {
    throw new EvalError("EVAL_USAGE", `--shard must be i/N with 1 <= i <= N, got "${text.slice(0, 40)}"`, {
      hint: "e.g. --shard 1/4 ... --shard 4/4, one per machine",
    });
  }
  return { index, count };
}

/** Every unit of a plan, in (case_id, trial) order. */
export function planUnits(plan: RunPlan): PlanUnit[] {
  return plan.cases.flatMap((c) => Array.from({ length: plan.trials }, (_, trial) => ({ case_id: c.case_id, trial })));
}

/** The shard's units: unit k (in plan order, from 0) belongs to shard (k mod N) + 1, so shards differ by at most one unit. */
export function shardUnits(plan: RunPlan, shard: ShardSpec): PlanUnit[] {
  return planUnits(plan).filter((_, k) => k % shard.count === shard.index - 1);
}

export interface RunShardOptions extends Omit<RunEvalOptions, "systemUnderTest"> {
  /** The SUT, or how to choose it (`sutFromSpec` with the plan's spec): resolved once, as the shard plans. */
  readonly systemUnderTest: SystemUnderTest | SutChooser;
  /** The plan to run, or null to plan first from `planOptions`. */
  readonly plan: RunPlan | null;
  readonly planOptions: Omit<PlanOptions, "systemUnderTest" | "onWarning" | "benchRoot">;
  readonly shard: ShardSpec;
  /** Where the bundle goes: a directory that must not exist yet. */
  readonly bundleDir: string;
}

export interface ShardResult {
  readonly plan: RunPlan;
  readonly bundleDir: string;
  readonly units: readonly BundleUnit[];
  readonly complete: boolean;
}

/**
 * Runs one shard: plans on this machine and refuses (EVAL_PLAN_MISMATCH, before any SUT call) unless
 * that is the given plan, runs the shard's units, and writes its bundle.
 */
export async function runShard(taskClassName: string, options: RunShardOptions): Promise<ShardResult> {
  const { plan: local, sut } = await planWithSut(taskClassName, {
    ...options.planOptions,
    ...(options.plan === null ? {} : { sutSpec: options.plan.sut.spec, trials: options.plan.trials }),
    systemUnderTest: options.systemUnderTest,
    ...(options.benchRoot === undefined ? {} : { benchRoot: options.benchRoot }),
    ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
  });
  const plan = options.plan ?? local;
  const difference = planDifference(plan, local);
  if (difference !== null)
    throw new EvalError("EVAL_PLAN_MISMATCH", `this machine's run is not the plan's: ${difference}`, {
      details: { plan: plan.plan_id, local: local.plan_id },
    });
  const units = shardUnits(plan, options.shard);
  const scored = await scoreRun(
    plan.task_class,
    {
      ...options,
      systemUnderTest: sut,
      trials: plan.trials,
      onlyUnits: new Set(units.map((unit) => trialUnitId(unit.case_id, unit.trial))),
    },
    { verifyChain: false },
  );
  try {
    return await bundleShard(options, plan, scored);
  } finally {
    // The details are in the bundle now; the directory is left for `gc`.
    releaseRunDir(scored.runDir);
  }
}

async function bundleShard(options: RunShardOptions, plan: RunPlan, scored: ScoredRun): Promise<ShardResult> {
  const bundleUnits: BundleUnit[] = [];
  for (const result of scored.caseResults) {
    const detail =
      result.detailPath === null
        ? null
        : (JSON.parse(await readFile(result.detailPath, "utf8")) as Record<string, unknown>);
    bundleUnits.push({
      case_id: result.case_id,
      trial: result.trial,
      cache_key: result.cacheKey,
      cache_hit: result.cacheHit,
      score: result.score,
      detail,
    });
  }
  const transcripts = await shardTranscripts(scored.stateDir, plan.task_class, scored.report.started_at);
  await writeBundle(options.bundleDir, {
    plan,
    shard: options.shard,
    hostFingerprint: scored.hostFingerprint,
    startedAt: scored.report.started_at,
    endedAt: scored.report.ended_at,
    complete: scored.report.complete,
    ...(scored.report.resource_limit_values === undefined
      ? {}
      : { resourceLimitValues: scored.report.resource_limit_values }),
    units: bundleUnits,
    transcripts,
    signingKey: options.signingKey ?? null,
  });
  return { plan, bundleDir: options.bundleDir, units: bundleUnits, complete: scored.report.complete };
}

/** The transcript lines this shard's agent SUT wrote (their invocation tags name the run's start), or null. */
async function shardTranscripts(stateDir: string, taskClass: string, startedAt: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(transcriptFile(stateLayout(stateDir).transcripts, taskClass), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const tag = JSON.stringify(`bench:${startedAt}:${taskClass}:`).slice(0, -1);
  const lines = text.split("\n").filter((line) => line.includes(tag));
  return lines.length === 0 ? null : `${lines.join("\n")}\n`;
}
