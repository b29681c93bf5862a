// `evalgate run --shard i/N [--plan plan.json]`: the flags checked before anything runs, then one
// shard run by @eval/runner, which writes the bundle.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { EvalError } from "@eval/errors";
import type { RunPlan } from "@eval/models";
import type { RunEvalOptions, ShardSpec, SutChooser } from "@eval/runner";
import { SHARD_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { ExitCode } from "../exit-codes.ts";

export interface ShardJob {
  readonly plan: RunPlan | null;
  readonly shard: ShardSpec;
  readonly bundleDir: string;
  readonly taskClass: string | undefined;
}

export interface ShardFlags {
  readonly plan: string | undefined;
  readonly shard: string | undefined;
  readonly bundle: string | undefined;
  readonly taskClass: string | undefined;
  readonly withVerdict: boolean;
  readonly cases: string | undefined;
  readonly cwd: string;
}

/** Reads and checks a plan file: one line naming the file when it is missing, not JSON, or not a plan. */
export async function readPlanFile(path: string): Promise<RunPlan> {
  const { parsePlan } = await import("@eval/runner");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new EvalError(
      "EVAL_IO",
      `cannot read the plan file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { hint: "write one with `evalgate plan --task-class <name>`" },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new EvalError("EVAL_PLAN_INVALID", `the plan file ${path} is not JSON (cut short, or not a plan file)`);
  }
  return parsePlan(value, path);
}

/** Checks the scale-out flags of `run` before any SUT is resolved or run. */
export async function prepareShard(flags: ShardFlags): Promise<ShardJob> {
  if (flags.shard === undefined)
    throw new EvalError("EVAL_USAGE", "--plan runs a shard of the plan: add --shard i/N (--shard 1/1 for all of it)");
  if (flags.withVerdict)
    throw new EvalError(
      "EVAL_USAGE",
      "a shard never writes a verdict: drop --with-verdict, and ask for one after `evalgate merge`",
    );
  if (flags.cases !== undefined)
    throw new EvalError("EVAL_USAGE", "a shard runs its part of a whole-task-class plan: drop --cases");
  const { parseShard } = await import("@eval/runner");
  const shard = parseShard(flags.shard);
  const plan = flags.plan === undefined ? null : await readPlanFile(resolve(flags.cwd, flags.plan));
  if (plan !== null && flags.taskClass !== undefined && flags.taskClass !== plan.task_class) {
    throw new EvalError(
      "EVAL_PLAN_MISMATCH",
      `--task-class ${flags.taskClass} is not the plan's task class ${plan.task_class}`,
      { hint: "drop --task-class: the plan names it" },
    );
  }
  const bundleDir = resolve(flags.cwd, flags.bundle ?? `shard-${shard.index}-of-${shard.count}`);
  return { plan, shard, bundleDir, taskClass: plan?.task_class ?? flags.taskClass };
}

/** Runs the shard and returns the JSON line to print and the exit code. */
export async function runShardJob(
  job: ShardJob,
  options: Omit<RunEvalOptions, "systemUnderTest"> & {
    readonly systemUnderTest: SutChooser;
    readonly sutSpec: string | undefined;
  },
): Promise<{ line: Record<string, unknown>; exitCode: number }> {
  const { runShard } = await import("@eval/runner");
  const { sutSpec, ...runOptions } = options;
  const result = await runShard(job.taskClass!, {
    ...runOptions,
    plan: job.plan,
    planOptions: sutSpec === undefined ? {} : { sutSpec },
    shard: job.shard,
    bundleDir: job.bundleDir,
  });
  const line = {
    type: "shard",
    schema_version: SHARD_LINE_SCHEMA_VERSION,
    plan_id: result.plan.plan_id,
    shard: `${job.shard.index}/${job.shard.count}`,
    units: result.units.length,
    cache_hits: result.units.filter((unit) => unit.cache_hit).length,
    complete: result.complete,
    bundle: result.bundleDir,
  };
  return { line, exitCode: result.complete ? ExitCode.ok : ExitCode.costCap };
}
