export { appendRunRecord, buildChainRecord, readChainHead } from "./append.ts";
export type { AppendOptions, ChainHead, RecordPlacement } from "./append.ts";
export { ChainConflict, ChainTampered } from "./errors.ts";
export type { ChainFault } from "./errors.ts";
export { chainHashOf, contentHashOfReport } from "./hashing.ts";
export { getHostFingerprint } from "./host.ts";
export { RECORD_FILE_PATTERN, recordFileName } from "./record-file.ts";
export { normalizeExpectedHead, verifyChain } from "./verify.ts";
export type { VerifyOptions, VerifyResult } from "./verify.ts";
