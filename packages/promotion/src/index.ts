export { chooseEvidence } from "./evidence.ts";
export type { ChooseEvidenceOptions, ChosenEvidence } from "./evidence.ts";
export { PromotionGate, PromotionMustBeHumanAuthorized } from "./gate.ts";
export type { EvaluateInput } from "./gate.ts";
export { loadTierConfig } from "./tier-config.ts";
export type { TierConfig } from "./tier-config.ts";
export { writeVerdict } from "./write-verdict.ts";
export { issueVerdict } from "./issue-verdict.ts";
export type { IssuedVerdict, IssueVerdictOptions } from "./issue-verdict.ts";
