export { registerTaskClass, isTaskClassRegistration } from "./registration.ts";
export type { TaskClassOptions, TaskClassRegistration } from "./registration.ts";
export type { TaskClass } from "./task-class.ts";
export { TaskClassRegistry, defaultRegistry } from "./task-class-registry.ts";
export { loadTaskClass, loadAllTaskClasses, listBenchDirs } from "./task-class-loader.ts";
export { BANNED_KEY_SUBSTRINGS } from "./task-class-inspection.ts";
export type { LoadTaskClassOptions } from "./task-class-loader.ts";
export { loadCases, selectCases, STALE_AFTER_DAYS } from "./case-loader.ts";
export type { CaseSelection, LoadCasesOptions } from "./case-loader.ts";
export { digestDirectory, CASE_TREE_SERIALIZATION } from "./digest.ts";
export type { DigestOptions, DirectoryDigest } from "./digest.ts";
export { lockedDependencyClosure } from "./lockfiles/dependency-closure.ts";
export { signBench } from "./sign.ts";
export { readCaseControls, readNearMissKinds } from "./bench-controls.ts";
export type { CaseControls, NearMissControl, NearMissKind } from "./bench-controls.ts";
export type { SignResult } from "./sign.ts";
export { runFence, DEFAULT_TIER_FLOOR } from "./fence.ts";
export type { FenceFailure, FenceOptions, FenceReport, FenceTaskClassSummary } from "./fence.ts";
export type { FenceAssertion } from "./findings.ts";
export {
  BenchDirMissing,
  CaseDigestMismatch,
  CaseIdCollision,
  CaseLoadFailed,
  CaseUnsafePath,
  FenceAssertionFailed,
  TaskClassAlreadyRegistered,
  TaskClassIncomplete,
  TaskClassInvalid,
  TaskClassNotFound,
} from "./errors.ts";
export { scaffoldTaskClass } from "./scaffold.ts";
export type { PackageManager, RubricLanguage, ScaffoldOptions, ScaffoldResult } from "./scaffold.ts";
