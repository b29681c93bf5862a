import { ScoreKindSchema, TaskAgentSchema, TaskClassNameSchema, TaskLimitsSchema, TierNameSchema } from "@eval/models";
import type { ScoreKind, TaskAgent, TaskLimits } from "@eval/models";
import { z } from "zod";
import { RUN_LIMITS } from "@eval/models/defaults";

/** What `registerTaskClass` accepts. Snake_case: it is data, checked by the fence. */
export interface TaskClassOptions {
  /** Passing cases a promotion into each tier needs, by tier name (tiers live in docs/trust-tiers.yaml). */
  readonly min_cases_for_promotion: Readonly<Record<string, number>>;
  /** The fewest cases the bench may hold (fence assertion 2); default 1. */
  readonly min_cases?: number;
  /**
   * How the rubric scores, which decides the promotion gate's bound (docs/runner.md): `binary` rubrics
   * report exactly 0 or 1 with passed exactly when the score is 1 (the gate bounds the pass rate,
   * Clopper-Pearson); `graded` rubrics report any score in [0, 1] (the gate bounds the mean score,
   * betting bound). Default `graded`.
   */
  readonly score_kind?: ScoreKind;
  /**
   * Trials per case a run of this class makes at least (a stochastic agent must be tried more than once per
   * case for its reliability to show): runs default to it and refuse fewer. Default 1.
   */
  readonly min_trials?: number;
  /**
   * A rubric in another language: the argv the runner spawns (cwd = a fresh temp dir). Relative
   * program paths starting with `./` resolve against the bench directory. Default: `node rubric.ts`.
   */
  readonly rubric_command?: readonly string[];
  readonly description?: string;
  /**
   * For agent SUTs (`--sut cli:<adapter>`): `edits`, the workspace paths a solution edits (globs allowed),
   * which decides whether an adapter whose CLI refuses some files can take the task; `adapters`, per
   * adapter, the `model` and extra `args` its runs use (`--agent-model` replaces the model; `--agent-arg`
   * flags come after these). Part of the rubric digest, like everything in registration.ts.
   */
  readonly agent?: TaskAgent;
  /**
   * The sandbox limits of its `command:` SUTs and of its rubric, where the defaults are too small (or too
   * large): `{ sut: { pids: 4096, memory: "8GiB", disk: "4GiB" }, rubric: { memory: "2GiB" } }`. Sizes are
   * whole KiB/MiB/GiB/TiB or bytes; `--sut-*` flags override `sut`. Part of the rubric digest.
   */
  readonly limits?: z.input<typeof TaskLimitsSchema>;
}

const BRAND = Symbol.for("evalgate.task-class-registration.v1");

/** The default export of bench/<slug>/registration.ts: plain data, read by the loader. */
export interface TaskClassRegistration {
  readonly [BRAND]: true;
  readonly name: string;
  readonly options: Readonly<Required<Pick<TaskClassOptions, "min_cases_for_promotion" | "min_cases" | "score_kind">>> &
    Readonly<Pick<TaskClassOptions, "rubric_command" | "description" | "min_trials" | "agent">> & {
      readonly limits?: TaskLimits;
    };
}

const OptionsSchema = z.strictObject({
  min_cases_for_promotion: z.record(TierNameSchema, z.number().int().min(1)),
  min_cases: z.number().int().min(1).default(1),
  score_kind: ScoreKindSchema.default("graded"),
  min_trials: z.number().int().min(1).max(RUN_LIMITS.maxTrials).optional(),
  rubric_command: z.array(z.string().min(1)).min(1).optional(),
  description: z.string().min(1).max(2000).optional(),
  agent: TaskAgentSchema.optional(),
  limits: TaskLimitsSchema.optional(),
});

/** Thrown by `registerTaskClass` on bad arguments; the loader reports it against the file. */
export class RegistrationArgumentError extends Error {}

/**
 * Declares a task class. Use it as the default export of bench/<slug>/registration.ts, with the
 * name as a string literal equal to <slug> (the fence checks both). It only describes the class: the
 * loader reads the sibling files and registers it, so importing registration.ts has no side effects.
 */
export function registerTaskClass(name: string, options: TaskClassOptions): TaskClassRegistration {
  const parsedName = TaskClassNameSchema.safeParse(name);
  if (!parsedName.success)
    throw new RegistrationArgumentError(
      `task class name ${JSON.stringify(name)}: ${parsedName.error.issues[0]?.message}`,
    );
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RegistrationArgumentError(`options.${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`);
  }
  const { rubric_command, description, min_trials, agent, limits, ...required } = parsed.data;
  return Object.freeze({
    [BRAND]: true as const,
    name,
    options: Object.freeze({
      ...required,
      min_cases_for_promotion: Object.freeze({ ...required.min_cases_for_promotion }),
      ...(rubric_command === undefined ? {} : { rubric_command: Object.freeze([...rubric_command]) }),
      ...(description === undefined ? {} : { description }),
      ...(min_trials === undefined ? {} : { min_trials }),
      ...(agent === undefined ? {} : { agent: structuredClone(agent) }),
      ...(limits === undefined ? {} : { limits: structuredClone(limits) }),
    }),
  });
}

/** True for a value made by `registerTaskClass`, also by another copy of this package. */
export function isTaskClassRegistration(value: unknown): value is TaskClassRegistration {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
