export { openEnvelope, reportDigests, signEnvelope } from "./attest.ts";
export { chainAnchor, readAnchor, verifyAgainstAnchor, writeAnchor } from "./anchor.ts";
export { appendRunRecord, buildChainRecord, readChainHead } from "./append.ts";
export { withAppendLock } from "./append-lock.ts";
export { ChainTampered } from "./errors.ts";
export { bareRunId, chainedRunIds, findRun, isRun, latestRun, readRecordFile, recordsNewestFirst } from "./find.ts";
export type { FoundRecord, ReadRecord } from "./find.ts";
export { chainHashOf, contentHashOfReport } from "./hashing.ts";
export { getHostFingerprint } from "./host.ts";
export { listRuns } from "./listing.ts";
export { RECORD_FILE_PATTERN, recordFileName } from "./record-file.ts";
export { runIdOfRecordFile } from "./record-run-id.ts";
export {
  generateSigningKey,
  keyIdOf,
  loadSigningKey,
  PAYLOAD_TYPES,
  preAuthEncoding,
  signatureFault,
  signDocument,
  writeNewSigningKey,
} from "./signing.ts";
export type { SigningKey } from "./signing.ts";
export { normalizeExpectedHead, verifyChain, verifyChainFrom, verifyChainLinks, verifyHeadRecord } from "./verify.ts";
export type { VerifiedPrefix, VerifyResult } from "./verify.ts";
