// Attestations, attack first, through a real chain: a run's in-toto Statement in a DSSE envelope, checked against
// the DSSE and in-toto specifications independently of evalgate's own code, then altered every way a forger
// could (the payload, its type, the signer, a consistent forged statement) and refused each time.
import { createHash, createPublicKey, verify } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  appendRunRecord,
  generateSigningKey,
  getHostFingerprint,
  loadSigningKey,
  readChainHead,
} from "@eval/audit-chain";
import type { SigningKey } from "@eval/audit-chain";
import { blake3Digest } from "@eval/hashing";
import type { BenchRunReportInput, DsseEnvelope } from "@eval/models";
import { caseGateStatistics } from "@eval/statistics";
import { runReport } from "@eval/test-utils";
import { attestRun, verifyAttestation } from "./attestation.ts";
import { loadTierConfig } from "./tier-config.ts";
import type { TierConfig } from "./tier-config.ts";

const TIERS = join(import.meta.dirname, "..", "..", "..", "docs", "trust-tiers.yaml");
const CASES = 12;
let stateDir: string;
let runsDir: string;
let ci: SigningKey;
let operator: SigningKey;
let config: TierConfig;

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "attestation-"));
  runsDir = join(stateDir, "runs");
  ci = (await loadSigningKey({ pem: generateSigningKey().privateKeyPem }))!;
  operator = (await loadSigningKey({ pem: generateSigningKey().privateKeyPem }))!;
  config = { ...(await loadTierConfig(TIERS)), signers: [{ name: "ci", public_key: ci.publicKey }] };
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

/** Records a signed run of CASES cases, the first `passed` passing, with the figures its scores give (or `lowerBound`). */
async function record(runId: string, passed: number, lowerBound?: number): Promise<BenchRunReportInput> {
  const template = runReport({
    cases: CASES,
    heldOut: 8,
    runId,
    prevHash: (await readChainHead(runsDir)).head,
    host: await getHostFingerprint(stateDir),
  });
  const perCase = template.per_case.map((entry, i) => ({
    ...entry,
    case_digest: `blake3:${i.toString(16).padStart(64, "0")}`,
    score: {
      passed: i < passed,
      score: i < passed ? 1 : 0,
      breakdown: {},
      failure_modes: [],
      cost_usd: 0,
      wall_clock_ms: i + 1,
    },
  }));
  const figures = caseGateStatistics(
    perCase.map((c) => [c.score]),
    { scoreKind: "binary", trials: 1, orderSeed: template.selection.selected_case_ids_digest },
  );
  const share = figures.passedCount / CASES;
  const report: BenchRunReportInput = {
    ...template,
    per_case: perCase,
    score_kind: "binary",
    lower_bound_method: "clopper_pearson",
    bound_quantity: "pass_rate",
    mean_score: figures.mean,
    score_stddev: figures.stddev,
    lower_bound_95: lowerBound ?? figures.lowerBound95,
    passed_count: figures.passedCount,
    failed_trial_count: CASES - figures.passedCount,
    reliability: { ...template.reliability, pass_at_1: share, pass_at_k: share, pass_hat_k: share },
  };
  await appendRunRecord(report, { runsDir, hostFingerprint: await getHostFingerprint(stateDir), signingKey: ci });
  return report;
}

const sortedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortedKeys)
    : value !== null && typeof value === "object"
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
        )
      : value;
const check = (envelope: unknown) => verifyAttestation({ path: "run.intoto.json", envelope, config, runsDir });
const decoded = (envelope: DsseEnvelope): Record<string, unknown> =>
  JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")) as Record<string, unknown>;
const encoded = (statement: unknown): string => Buffer.from(JSON.stringify(statement), "utf8").toString("base64");

describe("evalgate attest", () => {
  it("is a DSSE envelope of an in-toto Statement v1 (checked by hand against both specifications) that verifies against the chain", async () => {
    await record("run-0", 9);
    const { envelope, statement } = await attestRun({ runsDir, runId: "run-0", key: ci });
    // DSSE: payloadType, payload (base64 of the serialized body), signatures [{ keyid, sig }], sig = Sign(PAE(type, body)).
    expect(Object.keys(envelope).sort()).toEqual(["payload", "payloadType", "signatures"]);
    expect(envelope.payloadType).toBe("application/vnd.in-toto+json");
    const body = Buffer.from(envelope.payload, "base64");
    const type = Buffer.from(envelope.payloadType, "utf8");
    const pae = Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${body.length} `), body]);
    const publicKey = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(ci.publicKey, "base64").toString("base64url") },
      format: "jwk",
    });
    expect(envelope.signatures).toHaveLength(1);
    expect(envelope.signatures[0]!.keyid).toBe(ci.keyId);
    expect(verify(null, pae, publicKey, Buffer.from(envelope.signatures[0]!.sig, "base64"))).toBe(true);
    // in-toto Statement v1: _type, subject [{ name, digest: DigestSet }], predicateType, predicate.
    const parsed = decoded(envelope);
    expect(parsed).toEqual(JSON.parse(JSON.stringify(statement)));
    expect(parsed._type).toBe("https://in-toto.io/Statement/v1");
    expect(parsed.predicateType).toBe("urn:evalgate:predicate:run:v1");
    // The subject is the record's report: SHA-256 of the canonical JSON its content_hash covers.
    const recordFile = JSON.parse(
      await readFile(
        join(
          runsDir,
          (await readdir(runsDir)).find((f) => f.endsWith(".json"))!,
        ),
        "utf8",
      ),
    ) as { content_hash: string; chain_hash: string; report: Record<string, unknown> };
    // RFC 8785 for this document (keys sorted, no special numbers): proved right by its BLAKE3 being the chain's content hash.
    const canonical = JSON.stringify(sortedKeys({ ...recordFile.report, chain_head: null }));
    expect(blake3Digest(canonical)).toBe(recordFile.content_hash);
    expect(statement.subject).toEqual([
      {
        name: "evalgate-run/vuln-remediation/run-0",
        digest: {
          sha256: createHash("sha256").update(canonical).digest("hex"),
          blake3: recordFile.content_hash.slice(7),
        },
      },
    ]);
    expect(statement.predicate).toMatchObject({
      run_id: "run-0",
      figures: { passed_count: 9, lower_bound_method: "clopper_pearson" },
      record: { sequence: 0, chain_hash: recordFile.chain_hash, signer_key_id: ci.keyId },
    });
    expect(statement.predicate.cases).toHaveLength(CASES);
    expect(statement.predicate.cases[0]).toEqual({
      case_id: "000-case",
      case_digest: `blake3:${"0".repeat(64)}`,
      curation_class: expect.any(String),
      passed: true,
      value: 1,
    });
    await expect(check(envelope)).resolves.toMatchObject({
      signer: "ci",
      keyId: ci.keyId,
      statement: { predicate: { run_id: "run-0" } },
    });
  });

  it("ATTACK: the payload altered (bound raised, every case passing) under the old signature: refused", async () => {
    await record("run-0", 3);
    const { envelope, statement } = await attestRun({ runsDir, runId: "run-0", key: ci });
    const forged = {
      ...statement,
      predicate: {
        ...statement.predicate,
        figures: { ...statement.predicate.figures, passed_count: CASES, lower_bound_95: 0.78 },
      },
    };
    await expect(check({ ...envelope, payload: encoded(forged) })).rejects.toMatchObject({
      code: "EVAL_ATTESTATION_INVALID",
      message: expect.stringContaining("does not verify"),
    });
    // One bit of the payload, or of its type, flipped.
    const bytes = Buffer.from(envelope.payload, "base64");
    bytes[bytes.length - 3]! ^= 1;
    await expect(check({ ...envelope, payload: bytes.toString("base64") })).rejects.toMatchObject({
      code: "EVAL_ATTESTATION_INVALID",
    });
    await expect(check({ ...envelope, payloadType: "application/vnd.in-toto+json; v=2" })).rejects.toMatchObject({
      code: "EVAL_ATTESTATION_INVALID",
      message: expect.stringContaining("payloadType"),
    });
  });

  it("ATTACK: a statement forged and signed with the operator's own key: refused (not a declared signer)", async () => {
    await record("run-0", 3);
    const { statement } = await attestRun({ runsDir, runId: "run-0", key: ci });
    const forged = {
      ...statement,
      predicate: { ...statement.predicate, figures: { ...statement.predicate.figures, lower_bound_95: 0.78 } },
    };
    const { envelope } = await attestRun({ runsDir, runId: "run-0", key: operator });
    const { signEnvelope } = await import("@eval/audit-chain");
    await expect(
      check(signEnvelope(operator, envelope.payloadType, Buffer.from(JSON.stringify(forged)))),
    ).rejects.toMatchObject({
      code: "EVAL_ATTESTATION_INVALID",
      message: expect.stringContaining("no signature by a declared key"),
    });
    await expect(check(envelope)).rejects.toMatchObject({ code: "EVAL_ATTESTATION_INVALID" });
  });

  it("ATTACK: a statement the declared key signed that does not match the chain's record (a forged predicate, another run's subject): refused", async () => {
    await record("run-0", 3);
    await record("run-1", 11);
    const low = await attestRun({ runsDir, runId: "run-0", key: ci });
    const high = await attestRun({ runsDir, runId: "run-1", key: ci });
    const { signEnvelope } = await import("@eval/audit-chain");
    const sign = (statement: unknown) =>
      signEnvelope(ci, "application/vnd.in-toto+json", Buffer.from(JSON.stringify(statement)));
    const raised = {
      ...low.statement,
      predicate: { ...low.statement.predicate, figures: high.statement.predicate.figures },
    };
    await expect(check(sign(raised))).rejects.toMatchObject({
      code: "EVAL_ATTESTATION_INVALID",
      message: expect.stringContaining("not run run-0's record in the chain"),
    });
    await expect(check(sign({ ...low.statement, subject: high.statement.subject }))).rejects.toMatchObject({
      code: "EVAL_ATTESTATION_INVALID",
    });
    await expect(
      check(sign({ ...low.statement, predicateType: "https://slsa.dev/provenance/v1" })),
    ).rejects.toMatchObject({
      code: "EVAL_ATTESTATION_INVALID",
      message: expect.stringContaining("not an in-toto Statement"),
    });
    await expect(check({ payload: "x" })).rejects.toMatchObject({
      code: "EVAL_ATTESTATION_INVALID",
      message: expect.stringContaining("not a DSSE envelope"),
    });
  });

  it("refuses to attest a record whose stored figures disagree with its per-case data, and a run the chain does not hold", async () => {
    await record("run-0", 3, 0.9);
    await expect(attestRun({ runsDir, runId: "run-0", key: ci })).rejects.toMatchObject({
      code: "EVAL_RECORD_TAMPERED",
    });
    await expect(attestRun({ runsDir, runId: "run-9", key: ci })).rejects.toMatchObject({
      code: "EVAL_REPORT_NOT_FOUND",
    });
  });
});
