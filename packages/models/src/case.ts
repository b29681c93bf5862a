import { z } from "zod";
import {
  Blake3DigestSchema,
  CanaryPinSchema,
  CaseIdSchema,
  FailureModeCodeSchema,
  SeveritySchema,
  TaskClassNameSchema,
  TimestampSchema,
} from "./primitives.ts";

export const DispositionSchema = z.enum(["positive", "negative", "ambiguous"]);
export const DifficultySchema = z.enum(["easy", "medium", "hard"]);
export const CaseSourceSchema = z.enum(["curated", "outcome-ledger-derived", "regression-converted"]);
export const CurationClassSchema = z.enum(["rag-corpus-derived", "held-out"]);

const CommitShaSchema = z.string().regex(/^[0-9a-f]{7,64}$/, "expected a hex commit sha");

/** `commit_sha` is required exactly when a case was derived from history (source is not "curated"). */
function commitShaMatchesSource(
  value: { source: string; commit_sha?: string | null | undefined },
  ctx: z.RefinementCtx,
) {
  const hasSha = value.commit_sha !== undefined && value.commit_sha !== null;
  if (value.source !== "curated" && !hasSha) {
    ctx.addIssue({ code: "custom", path: ["commit_sha"], message: `required when source is "${value.source}"` });
  }
  if (value.source === "curated" && hasSha) {
    ctx.addIssue({ code: "custom", path: ["commit_sha"], message: 'must be absent when source is "curated"' });
  }
}

const caseFields = {
  case_id: CaseIdSchema,
  task_class: TaskClassNameSchema,
  title: z.string().min(1).max(200).optional(),
  /** The instruction an agent SUT receives for this case (the canary is appended by the harness). */
  prompt: z.string().min(1).max(20000).optional(),
  disposition: DispositionSchema,
  difficulty: DifficultySchema,
  source: CaseSourceSchema,
  curation_class: CurationClassSchema,
  commit_sha: CommitShaSchema.nullable().optional(),
  added_at: TimestampSchema,
  last_validated_at: TimestampSchema,
  cassette_canary_pin: CanaryPinSchema,
  /** Per-case rubric timeout override; the default is 60 s. */
  rubric_wall_clock_seconds: z.number().positive().max(300).optional(),
};

/** The shape of `cases/<case-id>/case.toml` (timestamps given as TOML offset date-times). */
export const CaseTomlSchema = z.strictObject(caseFields).superRefine(commitShaMatchesSource);

/** A loaded, digest-verified case: case.toml plus the paths and digest the loader derived. */
export const BenchCaseSchema = z
  .strictObject({
    ...caseFields,
    commit_sha: CommitShaSchema.nullable().default(null),
    /** Absolute path of the case directory. */
    case_path: z.string().min(1),
    input_path: z.string().min(1),
    expected_path: z.string().min(1),
    /** Absolute path of the recorded SUT session, when the case ships one. */
    cassette_path: z.string().min(1).nullable(),
    case_digest: Blake3DigestSchema,
  })
  .superRefine(commitShaMatchesSource);

/**
 * A case as a system under test sees it: the task, without a path into the bench. A SUT gets its input
 * as the scratch workspace; where the case lives (and so its `expected/`) is never given to it.
 */
export const SutCaseSchema = z
  .strictObject({
    ...caseFields,
    commit_sha: CommitShaSchema.nullable().default(null),
    case_digest: Blake3DigestSchema,
  })
  .superRefine(commitShaMatchesSource);

type BenchPaths = "case_path" | "input_path" | "expected_path" | "cassette_path";

/** The SUT's view of a bench case (a `SutCase`): every field but the paths into the bench. */
export function sutCaseOf<Case extends Readonly<Record<BenchPaths, string | null>>>(
  benchCase: Case,
): Omit<Case, BenchPaths> {
  const {
    case_path: _case,
    input_path: _input,
    expected_path: _expected,
    cassette_path: _cassette,
    ...rest
  } = benchCase;
  return rest;
}

/** `failure_modes.yaml`: the task class's taxonomy of failure codes. */
export const FailureModesFileSchema = z.record(
  FailureModeCodeSchema,
  z.strictObject({ severity: SeveritySchema, description: z.string().trim().min(1) }),
);

/** `cases/digests.yaml`: each case's digest and each of its files' digests. */
export const DigestsFileSchema = z.strictObject({
  schema_version: z.literal("evalgate.digests.v1"),
  /** Names the documented serialization the digests were computed over. */
  serialization: z.literal("evalgate.case-tree.v2"),
  cases: z.record(
    CaseIdSchema,
    z.strictObject({
      digest: Blake3DigestSchema,
      files: z.record(z.string().min(1), Blake3DigestSchema),
    }),
  ),
});
