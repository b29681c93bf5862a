export { PromotionGate, PromotionMustBeHumanAuthorized } from "./gate.ts";
export type { EvaluateInput } from "./gate.ts";
export { loadTierConfig } from "./tier-config.ts";
export type { TierConfig } from "./tier-config.ts";
export { writeVerdict } from "./write-verdict.ts";
