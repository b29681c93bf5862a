// `evalgate attest`: a recorded run as an in-toto Statement in a DSSE envelope, signed with the key that signs
// records, so CI can hand the gate's evidence to attestation tooling; and the check of such an envelope
// against the declared signers and the chain it claims to come from.
import { readFile } from "node:fs/promises";
import { replaceFile } from "@eval/durable-fs";
import {
  findRun,
  keyIdOf,
  openEnvelope,
  reportDigests,
  signEnvelope,
  verifyChain,
  ChainTampered,
} from "@eval/audit-chain";
import type { FoundRecord, SigningKey } from "@eval/audit-chain";
import { EvalError } from "@eval/errors";
import {
  DsseEnvelopeSchema,
  IN_TOTO_PAYLOAD_TYPE,
  IN_TOTO_STATEMENT_TYPE,
  RUN_PREDICATE_TYPE,
  RunStatementSchema,
  safeParseWire,
} from "@eval/models";
import type { DsseEnvelope, RecordedReport, RunPredicate, RunStatement } from "@eval/models";
import { checkRecordedFigures, recomputeFigures } from "./recorded-figures.ts";
import type { TierConfig } from "./tier-config.ts";

/** A report with a bound a gate may read, upgraded: what an attestation states. */
type GatedReport = Extract<RecordedReport, { bound_quantity: string }>;

/** An attestation that is not a declared signer's unaltered envelope of a record in the chain. */
class AttestationInvalid extends EvalError {
  constructor(path: string, why: string) {
    super("EVAL_ATTESTATION_INVALID", `attestation ${path}: ${why}`);
  }
}

/** The figures and digests a verdict reads of one record, recomputed from its per-case data. */
function predicateOf(found: FoundRecord, report: GatedReport): RunPredicate {
  const figures = recomputeFigures(report);
  const { record } = found;
  return {
    run_id: report.run_id,
    task_class: report.task_class,
    harness_version: report.harness_version,
    sut: { label: report.sut_label, digest: report.sut_digest },
    rubric_digest: report.rubric_digest,
    cassette_corpus_digest: report.cassette_corpus_digest,
    isolation_class: report.isolation_class,
    sut_isolation: report.sut_isolation,
    selection: report.selection,
    complete: report.complete,
    case_count: report.case_count,
    trials_per_case: report.trials_per_case,
    score_kind: report.score_kind,
    figures: {
      passed_count: figures.passed_count,
      mean_score: figures.mean_score,
      lower_bound_95: figures.lower_bound_95,
      lower_bound_method: figures.lower_bound_method,
      block_severity_failure_modes: figures.block_severity_failure_modes,
    },
    cases: report.per_case.map((entry) => {
      const trials = entry.trials ?? [entry.score];
      return {
        case_id: entry.case_id,
        case_digest: entry.case_digest ?? null,
        curation_class: entry.curation_class,
        passed: trials.every((score) => score.passed),
        value: entry.case_value ?? entry.score.score,
      };
    }),
    record: {
      sequence: record.sequence,
      recorded_at: record.recorded_at,
      prev_hash: record.prev_hash,
      content_hash: record.content_hash,
      chain_hash: record.chain_hash,
      signer_key_id: record.signature?.key_id ?? null,
    },
  };
}

/** The chain verified, then the run's record: a tampered chain is EVAL_CHAIN_TAMPERED, forged figures EVAL_RECORD_TAMPERED. */
async function verifiedRecord(
  runsDir: string,
  runId: string,
  taskClass: string | null = null,
): Promise<{ found: FoundRecord; report: GatedReport }> {
  const chain = await verifyChain({ runsDir });
  if (!chain.ok) throw new ChainTampered(chain.firstBad!, runsDir);
  const found = await findRun(runsDir, runId, taskClass);
  const { report } = found;
  if (report.bound_quantity === null) {
    throw new EvalError(
      "EVAL_REPORT_INVALID",
      `run ${report.run_id} was recorded before report v2: it has no valid bound to attest`,
      { hint: "attest a run recorded by this evalgate (`evalgate runs` lists them)" },
    );
  }
  const { tampered } = checkRecordedFigures(report);
  if (tampered !== null) throw tampered;
  return { found, report };
}

export interface Attestation {
  readonly envelope: DsseEnvelope;
  readonly statement: RunStatement;
}

/** The run's in-toto Statement (subject: its report's digests; predicate: what a verdict reads of it), signed in a DSSE envelope. */
export async function attestRun(options: {
  readonly runsDir: string;
  readonly runId: string;
  readonly key: SigningKey;
}): Promise<Attestation> {
  const { found, report } = await verifiedRecord(options.runsDir, options.runId);
  const statement: RunStatement = {
    _type: IN_TOTO_STATEMENT_TYPE,
    subject: [
      { name: `evalgate-run/${report.task_class}/${report.run_id}`, digest: reportDigests(found.record.report) },
    ],
    predicateType: RUN_PREDICATE_TYPE,
    predicate: predicateOf(found, report),
  };
  return {
    envelope: signEnvelope(options.key, IN_TOTO_PAYLOAD_TYPE, Buffer.from(JSON.stringify(statement), "utf8")),
    statement,
  };
}

export interface VerifiedAttestation {
  readonly statement: RunStatement;
  readonly keyId: string;
  /** The declared signer's name. */
  readonly signer: string;
}

/**
 * Checks an envelope (`path` names it in errors): a DSSE envelope of an in-toto Statement of evalgate's run
 * predicate, signed by a key declared in the tier config's `signers`, whose subject and predicate are exactly
 * what `attestRun` makes of the record in the chain today. Anything else is EVAL_ATTESTATION_INVALID.
 */
export async function verifyAttestation(options: {
  readonly path: string;
  readonly envelope: unknown;
  readonly config: TierConfig;
  readonly runsDir: string;
}): Promise<VerifiedAttestation> {
  const invalid = (why: string): AttestationInvalid => new AttestationInvalid(options.path, why);
  const envelope = safeParseWire(DsseEnvelopeSchema, options.envelope);
  if (!envelope.success) throw invalid("not a DSSE envelope (payloadType, payload, signatures)");
  if (envelope.data.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    throw invalid(`payloadType is ${JSON.stringify(envelope.data.payloadType)}, not ${IN_TOTO_PAYLOAD_TYPE}`);
  const declared = new Map(
    (options.config.signers ?? []).map((signer) => [keyIdOf(signer.public_key), signer.public_key]),
  );
  const opened = openEnvelope(envelope.data, declared);
  if ("fault" in opened) throw invalid(opened.fault);
  const statement = safeParseWire(RunStatementSchema, parseJson(opened.payload));
  if (!statement.success) throw invalid("its payload is not an in-toto Statement of an evalgate run");
  const { predicate } = statement.data;
  const { found, report } = await verifiedRecord(options.runsDir, predicate.run_id, predicate.task_class);
  const expected = JSON.stringify({
    digest: reportDigests(found.record.report),
    predicate: predicateOf(found, report),
  });
  if (JSON.stringify({ digest: statement.data.subject[0]!.digest, predicate }) !== expected)
    throw invalid(`its subject or predicate is not run ${predicate.run_id}'s record in the chain`);
  const signer = options.config.signers!.find((declaredSigner) => keyIdOf(declaredSigner.public_key) === opened.keyId)!;
  return { statement: statement.data, keyId: opened.keyId, signer: signer.name };
}

/** Writes an envelope as one line of JSON (the DSSE JSON serialization), atomically. */
export async function writeAttestation(path: string, envelope: DsseEnvelope): Promise<void> {
  try {
    await replaceFile(path, `${JSON.stringify(envelope)}\n`, { mode: 0o644 });
  } catch (error) {
    throw new EvalError("EVAL_IO", `cannot write the attestation ${path}: ${(error as Error).message}`, {
      hint: "write it to a writable path",
    });
  }
}

/** verifyAttestation of the envelope in the file at `path` (a file that cannot be read is EVAL_IO). */
export async function verifyAttestationFile(options: {
  readonly path: string;
  readonly config: TierConfig;
  readonly runsDir: string;
}): Promise<VerifiedAttestation> {
  let text: string;
  try {
    text = await readFile(options.path, "utf8");
  } catch (error) {
    throw new EvalError(
      "EVAL_IO",
      `cannot read the attestation ${options.path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { hint: "pass the file `evalgate attest <run> --write <file>` wrote" },
    );
  }
  return verifyAttestation({ ...options, envelope: parseJson(Buffer.from(text, "utf8")) });
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return null;
  }
}
