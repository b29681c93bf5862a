export {
  handOverTree,
  nodeInstallDir,
  programFootprint,
  realOrSelf,
  sandboxOwner,
  sandboxSupport,
  sandboxSupportAsync,
} from "./bwrap.ts";
export type { SandboxPolicy } from "./bwrap.ts";
export { SandboxUnavailable } from "./errors.ts";
export { killAllProcessGroups, runProcess } from "./process-runner.ts";
export type { ProcessOutcome } from "./process-runner.ts";
export { DEFAULT_TREE_LIMITS, removeTree, TreeInvalid, walkTree, walkTreeSync } from "./tree-walk.ts";
export { networkSupport } from "./network.ts";
export { defaultLimits, limitHitDetail, limitMechanism } from "./limits.ts";
export type { ResourceLimits } from "./limits.ts";
