// A run as an attestation other tooling can check: an in-toto Statement v1 (https://in-toto.io/Statement/v1)
// in a DSSE envelope (https://github.com/secure-systems-lab/dsse), signed with the key that signs records.
import { z } from "zod";
import type { DeepReadonly } from "./freeze.ts";
import { CurationClassSchema } from "./case.ts";
import {
  IsolationClassSchema,
  LowerBoundMethodSchema,
  ScoreKindSchema,
  SelectionSchema,
  SutIsolationSchema,
} from "./report.ts";
import {
  Blake3DigestSchema,
  CaseIdSchema,
  Sha256DigestSchema,
  TaskClassNameSchema,
  UnitIntervalSchema,
} from "./primitives.ts";

export const IN_TOTO_STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
/** DSSE payloadType of an in-toto Statement. */
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";
export const RUN_PREDICATE_TYPE = "urn:evalgate:predicate:run:v1";
export const ATTESTATION_LINE_SCHEMA_VERSION = "evalgate.attestation_line.v1";

const Base64Schema = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "standard base64");

/** A DSSE envelope (JSON serialization): the payload's bytes base64, one or more signatures over PAE(type, payload). */
export const DsseEnvelopeSchema = z.strictObject({
  payloadType: z.string().min(1),
  payload: Base64Schema,
  signatures: z.array(z.strictObject({ keyid: z.string(), sig: Base64Schema.min(1) })).min(1),
});

/** What the gate reads of one run, recomputed from its per-case data: the figures a verdict would judge. */
export const RunPredicateSchema = z.strictObject({
  run_id: z.string().min(1),
  task_class: TaskClassNameSchema,
  harness_version: z.string().min(1),
  sut: z.strictObject({ label: z.string(), digest: Blake3DigestSchema }),
  rubric_digest: Blake3DigestSchema,
  cassette_corpus_digest: Blake3DigestSchema,
  isolation_class: IsolationClassSchema,
  sut_isolation: SutIsolationSchema,
  selection: SelectionSchema,
  complete: z.boolean(),
  case_count: z.number().int().min(0),
  trials_per_case: z.number().int().min(1),
  score_kind: ScoreKindSchema,
  figures: z.strictObject({
    passed_count: z.number().int().min(0),
    mean_score: UnitIntervalSchema,
    lower_bound_95: UnitIntervalSchema,
    lower_bound_method: LowerBoundMethodSchema,
    block_severity_failure_modes: z.array(z.string()),
  }),
  /** Each case's outcome (its value is the mean over its trials), by id and content digest when recorded. */
  cases: z.array(
    z.strictObject({
      case_id: CaseIdSchema,
      case_digest: Blake3DigestSchema.nullable(),
      curation_class: CurationClassSchema,
      passed: z.boolean(),
      value: UnitIntervalSchema,
    }),
  ),
  /** Where the run sits in the audit chain, and who signed its record (null: unsigned). */
  record: z.strictObject({
    sequence: z.number().int().min(0),
    recorded_at: z.iso.datetime({ precision: 3 }),
    prev_hash: Sha256DigestSchema,
    content_hash: Blake3DigestSchema,
    chain_hash: Sha256DigestSchema,
    signer_key_id: Sha256DigestSchema.nullable(),
  }),
});

/**
 * The Statement: the subject is the run's report (the canonical JSON `content_hash` covers), by SHA-256 (what
 * attestation tooling such as GitHub's requires) and by BLAKE3 (the chain's own content hash).
 */
export const RunStatementSchema = z.strictObject({
  _type: z.literal(IN_TOTO_STATEMENT_TYPE),
  subject: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        digest: z.strictObject({
          sha256: z.string().regex(/^[0-9a-f]{64}$/),
          blake3: z.string().regex(/^[0-9a-f]{64}$/),
        }),
      }),
    )
    .length(1),
  predicateType: z.literal(RUN_PREDICATE_TYPE),
  predicate: RunPredicateSchema,
});

/** `attest`: the envelope written (or checked) and what it attests. */
export const AttestationLineSchema = z.strictObject({
  type: z.literal("attestation"),
  schema_version: z.literal(ATTESTATION_LINE_SCHEMA_VERSION),
  /** The envelope's file. */
  path: z.string().min(1),
  /** True for `attest --verify`: the signature holds under a declared signer and the subject is the chain's record. */
  verified: z.boolean(),
  run_id: z.string().min(1),
  task_class: TaskClassNameSchema,
  subject_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  key_id: Sha256DigestSchema,
  /** The declared signer's name (trust-tiers.yaml `signers`), null when the key is not declared. */
  signer: z.string().nullable(),
  lower_bound_95: UnitIntervalSchema,
});

export type DsseEnvelope = DeepReadonly<z.output<typeof DsseEnvelopeSchema>>;
export type RunPredicate = DeepReadonly<z.output<typeof RunPredicateSchema>>;
export type RunStatement = DeepReadonly<z.output<typeof RunStatementSchema>>;
