// chooseEvidence reads the chain; a caller that has just verified it (run --with-verdict) passes that
// result instead of a second walk.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { appendRunRecord, getHostFingerprint } from "@eval/audit-chain";
import type { VerifyResult } from "@eval/audit-chain";
import { GENESIS_PREV_HASH } from "@eval/models";
import type { BenchRunReportInput } from "@eval/models";
import { chooseEvidence } from "./index.ts";
import { reportWith } from "./__fixtures__/reports.ts";

let stateDir: string;
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "evidence-"));
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

it("walks the chain itself, or uses the caller's verification without walking it again", async () => {
  const runsDir = join(stateDir, "runs");
  const host = await getHostFingerprint(stateDir);
  const report: BenchRunReportInput = JSON.parse(
    JSON.stringify({
      ...reportWith({ lowerBound: 0.7, passed: 10, heldOut: 6, taskClass: "vuln-remediation" }),
      host_fingerprint: host,
      prev_hash: GENESIS_PREV_HASH,
      chain_head: null,
    }),
  ) as BenchRunReportInput;
  await appendRunRecord(report, { runsDir, hostFingerprint: host });
  const walked = await chooseEvidence({ runsDir, taskClass: "vuln-remediation" });
  expect(walked).toMatchObject({ chainVerified: true, chain: { ok: true, records: 1 } });
  // A result the chain on disk would not give proves the caller's verification is used as given.
  const given: VerifyResult = {
    ...walked.chain,
    ok: false,
    firstBad: { file: "x", reason: "given", expected: "", found: "" },
  };
  const reused = await chooseEvidence({ runsDir, taskClass: "vuln-remediation", verified: given });
  expect(reused.chain).toBe(given);
  expect(reused.chainVerified).toBe(false);
});
