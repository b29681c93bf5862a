import type { FailureModesFile, ScoreKind, TaskAgent, TaskLimits } from "@eval/models";

/** A loaded task class: its registration plus what the loader read from its bench directory. */
export interface TaskClass {
  readonly name: string;
  /** Absolute bench/<name>. */
  readonly benchPath: string;
  /** Absolute path of the registration.ts that registered this class. */
  readonly registrationPath: string;
  readonly description: string | null;
  readonly minCasesForPromotion: Readonly<Record<string, number>>;
  readonly minCases: number;
  /** How the rubric scores, which decides the gate's bound: `binary` (0/1) or `graded` ([0, 1]). */
  readonly scoreKind: ScoreKind;
  /** Trials per case every run of this class makes at least (registration `min_trials`); absent means 1. */
  readonly minTrials?: number;
  /** From breakdown-keys.ts `export const BREAKDOWN_KEYS = [...] as const`. */
  readonly breakdownKeys: ReadonlySet<string>;
  /** From failure_modes.yaml. */
  readonly failureModeTaxonomy: FailureModesFile;
  /** The declared rubric argv, or null for the default `node <benchPath>/rubric.ts`. */
  readonly rubricCommand: readonly string[] | null;
  /** <benchPath>/rubric.ts when the default command applies, else null. */
  readonly rubricPath: string | null;
  /** What the class declares about the agents that solve it (registration `agent`), or null. */
  readonly agent: TaskAgent | null;
  /** The sandbox limits it sets for its `command:` SUTs and its rubric (registration `limits`); absent: the defaults. */
  readonly limits?: TaskLimits;
  /** `blake3:<hex>` over everything that decides how a case is scored (docs/bench-authoring.md). */
  readonly rubricDigest: string;
}
