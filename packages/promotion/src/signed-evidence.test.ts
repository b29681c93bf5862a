// Signed evidence, attack first, through a real chain and the real verdict path: CI signs with a key whose
// public half trust-tiers.yaml declares; the operator, who holds the state directory but not that key, forges a
// failing run into a passing one, strips a signature, or drops a failing run and re-chains the rest.
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  appendRunRecord,
  buildChainRecord,
  chainAnchor,
  generateSigningKey,
  getHostFingerprint,
  loadSigningKey,
  readAnchor,
  readChainHead,
  verifyChain,
  writeAnchor,
} from "@eval/audit-chain";
import type { SigningKey } from "@eval/audit-chain";
import type { BenchRunReportInput } from "@eval/models";
import { caseGateStatistics } from "@eval/statistics";
import { runReport } from "@eval/test-utils";
import { issueVerdict } from "./issue-verdict.ts";
import { loadTierConfig } from "./tier-config.ts";

const TIERS = join(import.meta.dirname, "..", "..", "..", "docs", "trust-tiers.yaml");
const CASES = 12;
let stateDir: string;
let runsDir: string;
let ci: SigningKey;
let operator: SigningKey;
let tiersPath: string;

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "signed-evidence-"));
  runsDir = join(stateDir, "runs");
  ci = (await loadSigningKey({ pem: generateSigningKey().privateKeyPem }))!;
  operator = (await loadSigningKey({ pem: generateSigningKey().privateKeyPem }))!;
  // The repository's tiers, bronze requiring signed evidence, CI's public key declared.
  const tiers = (await readFile(TIERS, "utf8"))
    .replace(
      "    min_held_out: 5\n    description: The agent may open",
      "    min_held_out: 5\n    require_signed: true\n    description: The agent may open",
    )
    .concat(`\nsigners:\n  - name: ci\n    public_key: ${ci.publicKey}\n`);
  tiersPath = join(stateDir, "trust-tiers.yaml");
  await writeFile(tiersPath, tiers);
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

/** A run of CASES cases, the first `passed` passing, with the figures its per-case scores give. */
async function runOf(runId: string, passed: number, taskClass?: string): Promise<BenchRunReportInput> {
  const template = runReport({
    cases: CASES,
    heldOut: 8,
    runId,
    prevHash: (await readChainHead(runsDir)).head,
    host: await getHostFingerprint(stateDir),
  });
  const perCase = template.per_case.map((entry, i) => ({
    ...entry,
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
  return {
    ...template,
    ...(taskClass === undefined ? {} : { task_class: taskClass }),
    per_case: perCase,
    score_kind: "binary",
    lower_bound_method: "clopper_pearson",
    bound_quantity: "pass_rate",
    mean_score: figures.mean,
    score_stddev: figures.stddev,
    lower_bound_95: figures.lowerBound95,
    passed_count: figures.passedCount,
    failed_trial_count: CASES - figures.passedCount,
    reliability: { ...template.reliability, pass_at_1: share, pass_at_k: share, pass_hat_k: share },
  };
}

async function record(runId: string, passed: number, key: SigningKey | null, taskClass?: string): Promise<string> {
  const { path } = await appendRunRecord(await runOf(runId, passed, taskClass), {
    runsDir,
    hostFingerprint: await getHostFingerprint(stateDir),
    signingKey: key,
  });
  return path;
}

async function verdict(path = tiersPath, anchorFile?: string) {
  return issueVerdict({
    ...(anchorFile === undefined ? {} : { anchor: await readAnchor(anchorFile) }),
    config: await loadTierConfig(path),
    runsDir,
    recommendationsDir: join(stateDir, "recommendations"),
    taskClass: { name: "vuln-remediation", minCasesForPromotion: { bronze: 10 } },
  });
}

/** The operator rebuilds the chain from `files` on (deleting them), with their own key or none. */
async function rechain(
  files: readonly string[],
  reports: readonly BenchRunReportInput[],
  key: SigningKey | null,
): Promise<void> {
  const records = await Promise.all(files.map(async (file) => JSON.parse(await readFile(file, "utf8"))));
  for (const file of files) await rm(file);
  for (const [index, report] of reports.entries()) {
    const head = await readChainHead(runsDir);
    const { fileName, text } = await buildChainRecord(
      { ...report, prev_hash: head.head },
      {
        prevHash: head.head,
        sequence: head.nextSequence,
        recordedAt: records[index]!.recorded_at,
        hostFingerprint: records[index]!.host_fingerprint,
        signingKey: key,
      },
    );
    await writeFile(join(runsDir, fileName), text, { mode: 0o600 });
  }
}

describe("signed evidence", () => {
  it("CI's signed runs reach a tier that requires signatures; the verdict names the signer", async () => {
    await record("run-0", CASES, ci);
    const { verdict: v, tampered } = await verdict();
    expect(tampered).toBeNull();
    expect(v.evidence_sufficient).toBe(true);
    expect(v.signatures).toEqual({ status: "signed", signers: ["ci"], runs_not_signed: [], head_signed: true });
  });

  it("without a key everything works as before, and the verdict says unsigned (refused only where a tier requires signatures)", async () => {
    await record("run-0", CASES, null);
    const plain = (await verdict(TIERS)).verdict;
    expect(plain.evidence_sufficient).toBe(true);
    expect(plain.signatures).toEqual({
      status: "unsigned",
      signers: [],
      runs_not_signed: [{ run_id: "run-0", key_id: null }],
      head_signed: false,
    });
    const strict = (await verdict()).verdict;
    expect(strict.evidence_sufficient).toBe(false);
    expect(strict.reasons).toContain(
      "bronze requires evidence signed by a signer declared in trust-tiers.yaml: runs not signed by a declared signer: run-0 (unsigned); the chain's head is not signed by a declared signer",
    );
  });

  it("ATTACK: a failing signed run rewritten to pass and re-signed with the operator's own key: the chain verifies, the verdict refuses", async () => {
    const path = await record("run-0", 2, ci);
    await rechain([path], [await runOf("run-0", CASES)], operator);
    expect(await verifyChain({ runsDir })).toMatchObject({ ok: true, records: 1 });
    // Without a signature requirement the forgery is promoted: what signing closes.
    expect((await verdict(TIERS)).verdict.evidence_sufficient).toBe(true);
    const { verdict: v } = await verdict();
    expect(v.evidence_sufficient).toBe(false);
    expect(v.signatures).toMatchObject({
      status: "untrusted",
      runs_not_signed: [{ run_id: "run-0", key_id: operator.keyId }],
      head_signed: false,
    });
    expect(v.reasons.join("\n")).toContain(`run-0 (undeclared key ${operator.keyId})`);
  });

  it("ATTACK: a failing run's signature stripped: the chain verifies, the verdict refuses", async () => {
    await record("run-0", CASES, ci);
    const failing = await record("run-1", 2, ci);
    const { signature: _dropped, ...rest } = JSON.parse(await readFile(failing, "utf8"));
    await writeFile(failing, `${JSON.stringify(rest)}\n`, { mode: 0o600 });
    expect(await verifyChain({ runsDir })).toMatchObject({ ok: true, records: 2 });
    const { verdict: v } = await verdict();
    expect(v.evidence_sufficient).toBe(false);
    expect(v.signatures).toMatchObject({
      status: "unsigned",
      signers: ["ci"],
      runs_not_signed: [{ run_id: "run-1", key_id: null }],
      head_signed: false,
    });
  });

  it("ATTACK: a failing run dropped from mid-chain and the later records re-chained (no key, or the operator's): refused", async () => {
    await record("run-0", CASES, ci);
    const failing = await record("run-1", 2, ci);
    const later = await record("other-class", CASES, ci, "migration-chainguard-distroless");
    const laterReport = JSON.parse(await readFile(later, "utf8")).report;
    await rm(failing);
    await rechain([later], [{ ...laterReport, chain_head: null }], null);
    expect((await readdir(runsDir)).filter((name) => name.endsWith(".json"))).toHaveLength(2);
    expect(await verifyChain({ runsDir })).toMatchObject({ ok: true, records: 2 });
    expect((await verdict(TIERS)).verdict.evidence_sufficient).toBe(true);
    const unsignedHead = (await verdict()).verdict;
    expect(unsignedHead.evidence_sufficient).toBe(false);
    expect(unsignedHead.signatures).toMatchObject({ status: "unsigned", runs_not_signed: [], head_signed: false });
    const [, head] = (await readdir(runsDir)).filter((name) => name.endsWith(".json")).sort();
    await rechain([join(runsDir, head!)], [{ ...laterReport, chain_head: null }], operator);
    expect((await verdict()).verdict.signatures).toMatchObject({ status: "untrusted", head_signed: false });
  });

  it("ATTACK: the failing newest run deleted (truncation) and an anchor of the truncated chain written by the operator: refused", async () => {
    await record("run-0", CASES, ci);
    const failing = await record("run-1", 2, ci);
    const ciAnchor = join(stateDir, "ci-anchor.json");
    await writeAnchor(ciAnchor, (await chainAnchor(runsDir, ci))!);
    await rm(failing);
    expect(await verifyChain({ runsDir })).toMatchObject({ ok: true, records: 1 });
    // CI's signed anchor catches it; the operator's own anchors (unsigned, or signed with their key) are not accepted.
    expect((await verdict(tiersPath, ciAnchor)).verdict.evidence_sufficient).toBe(false);
    const forged = join(stateDir, "forged-anchor.json");
    await writeAnchor(forged, (await chainAnchor(runsDir))!);
    expect((await verdict(TIERS, forged)).verdict.evidence_sufficient).toBe(true);
    const unsignedAnchor = (await verdict(tiersPath, forged)).verdict;
    expect(unsignedAnchor.evidence_sufficient).toBe(false);
    expect(unsignedAnchor.signatures).toMatchObject({ status: "unsigned", head_signed: true, anchor_signed: false });
    expect(unsignedAnchor.reasons.join("\n")).toContain("the anchor is not signed by a declared signer");
    await writeAnchor(forged, (await chainAnchor(runsDir, operator))!);
    expect((await verdict(tiersPath, forged)).verdict.signatures).toMatchObject({
      status: "untrusted",
      anchor_signed: false,
    });
    // Moving CI's signed anchor back (its head and count edited, the signature kept) is refused on reading.
    const moved = JSON.parse(await readFile(ciAnchor, "utf8"));
    await writeFile(ciAnchor, JSON.stringify({ ...moved, records: 1, head: (await readChainHead(runsDir)).head }));
    await expect(readAnchor(ciAnchor)).rejects.toMatchObject({
      code: "EVAL_CHAIN_TAMPERED",
      message: expect.stringContaining("the signature does not verify"),
    });
  });
});
