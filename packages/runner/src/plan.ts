// `evalgate plan`: a run decided once (task class, cases, SUT, rubric, harness, trials) and executed
// anywhere, in shards.
import { resolve } from "node:path";
import { EvalError, ignoreWarnings } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import { formatIssues, RUN_PLAN_SCHEMA_VERSION, RunPlanSchema, parseWire, safeParseWire } from "@eval/models";
import type { RunPlan, SystemUnderTest } from "@eval/models";
import { loadTaskClass, selectCases, TaskClassRegistry } from "@eval/registry";
import { caseCacheKey } from "./case-keys.ts";
import { rubricIsolationClass } from "./rubric-isolation.ts";
import type { SandboxMode } from "./rubric-isolation.ts";
import { cassetteCorpusDigest, trialsSetting } from "./prepare-run.ts";
import type { SutChooser } from "./run-types.ts";
import { digestOf } from "./sut.ts";
import { chosenSutSpec } from "./sut-spec.ts";
import { HARNESS_VERSION } from "./version.ts";

export interface PlanOptions {
  /** The SUT, or how to choose it once the task class is loaded (`sutFromSpec`). */
  readonly systemUnderTest: SystemUnderTest | SutChooser;
  /** The --sut value a shard resolves again (its digest must match); undefined: the default rule (`defaultSutSpec`). */
  readonly sutSpec?: string | undefined;
  /** Default 1. A unit is a (case, trial) pair. */
  readonly trials?: number;
  readonly benchRoot?: string;
  readonly harnessVersion?: string;
  readonly sandbox?: SandboxMode;
  readonly networkIsolation?: boolean;
  readonly onWarning?: WarningSink;
  /** The clock (tests); only `created_at` depends on it. */
  readonly now?: () => Date;
}

type PlanIdentity = Omit<RunPlan, "plan_id" | "created_at" | "schema_version">;

/** The run's identity: BLAKE3 over the plan's fields in a fixed order (never created_at, never a shard count). */
export function planIdOf(plan: PlanIdentity): string {
  const identity = [
    plan.task_class,
    plan.score_kind,
    plan.harness_version,
    plan.sut.spec,
    plan.sut.label,
    plan.sut.digest,
    plan.rubric_digest,
    plan.cassette_corpus_digest,
    plan.isolation_class,
    plan.sut_isolation,
    String(plan.trials),
    String(plan.task_class_case_count),
    ...plan.cases.map((c) => `${c.case_id}\t${c.case_digest}\t${c.curation_class}\t${c.cache_key}`),
  ];
  return digestOf(RUN_PLAN_SCHEMA_VERSION, identity);
}

/**
 * Plans a run over the whole task class: loads it and verifies every case digest (refusing as a run
 * would), then fixes each case's digest and cache key. Runs nothing and writes nothing.
 */
export async function planRun(taskClassName: string, options: PlanOptions): Promise<RunPlan> {
  return (await planWithSut(taskClassName, options)).plan;
}

/** `planRun`, and the SUT it planned with (a shard runs that one: its spec is resolved once). */
export async function planWithSut(
  taskClassName: string,
  options: PlanOptions,
): Promise<{ readonly plan: RunPlan; readonly sut: SystemUnderTest }> {
  const onWarning = options.onWarning ?? ignoreWarnings;
  const trials = trialsSetting(options.trials);
  const taskClass = await loadTaskClass(taskClassName, {
    benchRoot: resolve(options.benchRoot ?? "bench"),
    registry: new TaskClassRegistry(),
    onWarning,
  });
  const { selected, taskClassCaseCount } = await selectCases(taskClass, { onWarning });
  if (selected.length === 0)
    throw new EvalError("EVAL_NO_CASES_SELECTED", `task class "${taskClass.name}" has no cases: nothing to plan`);
  const sutSpec = chosenSutSpec(options.sutSpec, taskClass, selected);
  const sut =
    typeof options.systemUnderTest === "function"
      ? await options.systemUnderTest({ taskClass, cases: selected })
      : options.systemUnderTest;
  const isolationClass = rubricIsolationClass(taskClass, {
    sandbox: options.sandbox ?? "bwrap",
    ...(options.networkIsolation === undefined ? {} : { networkIsolation: options.networkIsolation }),
  });
  const sutIsolation = sut.isolation ?? "in-process";
  const corpusDigest = await cassetteCorpusDigest(taskClass.benchPath);
  const harnessVersion = options.harnessVersion ?? HARNESS_VERSION;
  const keyContext = { sut, taskClass, corpusDigest, harnessVersion, isolationClass, sutIsolation };
  const identity: PlanIdentity = {
    task_class: taskClass.name,
    score_kind: taskClass.scoreKind,
    harness_version: harnessVersion,
    sut: { spec: sutSpec, label: sut.label.slice(0, 500), digest: sut.digest },
    rubric_digest: taskClass.rubricDigest,
    cassette_corpus_digest: corpusDigest,
    isolation_class: isolationClass,
    sut_isolation: sutIsolation,
    trials,
    task_class_case_count: taskClassCaseCount,
    cases: [...selected]
      .sort((a, b) => (a.case_id < b.case_id ? -1 : a.case_id > b.case_id ? 1 : 0))
      .map((c) => ({
        case_id: c.case_id,
        case_digest: c.case_digest,
        curation_class: c.curation_class,
        cache_key: caseCacheKey(c, keyContext),
      })),
  };
  const createdAt = (options.now ?? (() => new Date()))().toISOString();
  const plan = parseWire(RunPlanSchema, {
    schema_version: RUN_PLAN_SCHEMA_VERSION,
    plan_id: planIdOf(identity),
    created_at: createdAt,
    ...identity,
  });
  return { plan, sut };
}

/** The first field in which two plans differ (for a one-line error), or null when they are the same run. */
export function planDifference(expected: RunPlan, found: RunPlan): string | null {
  // The expected plan's id is recomputed: a plan object edited in memory is judged by its content.
  if (expected.plan_id === found.plan_id && planIdOf(expected) === found.plan_id) return null;
  const scalar = [
    "task_class",
    "score_kind",
    "harness_version",
    "rubric_digest",
    "cassette_corpus_digest",
    "isolation_class",
    "sut_isolation",
    "trials",
    "task_class_case_count",
  ] as const;
  for (const field of scalar)
    if (expected[field] !== found[field])
      return `${field} is ${String(found[field])}, the plan says ${String(expected[field])}`;
  if (expected.sut.digest !== found.sut.digest)
    return `the SUT's digest is ${found.sut.digest}, the plan says ${expected.sut.digest}`;
  const byId = new Map(found.cases.map((c) => [c.case_id, c]));
  for (const c of expected.cases) {
    const other = byId.get(c.case_id);
    if (other === undefined) return `case ${c.case_id} is not in this bench`;
    if (other.case_digest !== c.case_digest)
      return `case ${c.case_id} has digest ${other.case_digest}, the plan says ${c.case_digest}`;
  }
  return `the plan id is ${found.plan_id}, the plan says ${expected.plan_id}`;
}

/**
 * Parses a plan file's JSON and checks that its plan_id is the identity of its content. Not a plan's
 * shape is EVAL_PLAN_INVALID (a bad file), distinct from a valid plan this machine does not match.
 */
export function parsePlan(value: unknown, source: string): RunPlan {
  const parsed = safeParseWire(RunPlanSchema, value);
  if (!parsed.success)
    throw new EvalError("EVAL_PLAN_INVALID", `${source} is not a run plan: ${formatIssues(parsed.issues)}`);
  const plan = parsed.data;
  const id = planIdOf(plan);
  if (id !== plan.plan_id)
    throw new EvalError(
      "EVAL_BUNDLE_TAMPERED",
      `${source} was edited: its content hashes to ${id}, not its plan_id ${plan.plan_id}`,
    );
  return plan;
}
