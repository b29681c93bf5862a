export {
  handOverTree,
  nodeInstallDir,
  programFootprint,
  realOrSelf,
  sandboxArgv,
  sandboxOwner,
  sandboxSupport,
} from "./bwrap.ts";
export type { SandboxPolicy, SandboxSupport } from "./bwrap.ts";
export { SandboxUnavailable } from "./errors.ts";
export { LineBuffer } from "./line-buffer.ts";
export {
  DEFAULT_GRACE_MS,
  DEFAULT_STDOUT_CAP_BYTES,
  killAllProcessGroups,
  liveProcessGroups,
  processGroupAlive,
  runProcess,
} from "./process-runner.ts";
export type { ProcessOutcome, ProcessSpec, StopReason } from "./process-runner.ts";
export { DEFAULT_TREE_LIMITS, removeTree, TreeInvalid, walkTree, walkTreeSync } from "./tree-walk.ts";
export { networkSupport } from "./network.ts";
export { defaultLimits, limitHitDetail, limitMechanism } from "./limits.ts";
export type { LimitKind, LimitMechanism, ResourceLimits } from "./limits.ts";
