export { startModelBridge } from "./bridge.ts";
export type { BudgetStop, CaseBudget, ModelBridge, ModelBridgeOptions, SpendLedger } from "./bridge.ts";
export type { ExchangeRequest, RecordedExchange, ReplayDivergence, ReplayMatcher } from "./exchanges.ts";
export type { Upstream } from "./forward.ts";
export type { MeteredFigures } from "./meter.ts";
export { PRICE_TABLE } from "./price-table.ts";
export type { ModelPrice, PriceTable } from "./price-table.ts";
export type { TokenUsage, WireProtocol } from "./protocols.ts";
export { RELAY_PORT, relayInvocation } from "./relay.ts";
