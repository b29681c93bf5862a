export { startModelBridge } from "./bridge.ts";
export type { BudgetStop, CaseBudget, ModelBridge, SpendLedger, UnreachableUpstream } from "./bridge.ts";
export type { RecordedExchange, ReplayDivergence, ReplayMatcher } from "./exchanges.ts";
export type { Upstream } from "./forward.ts";
export type { MeteredFigures } from "./meter.ts";
export { PRICE_TABLE } from "./price-table.ts";
export { findSocat, RELAY_PORT, relayInvocation } from "./relay.ts";
export { createReplayMatcher } from "./replay.ts";
