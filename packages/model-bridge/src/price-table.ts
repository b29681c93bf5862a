// The price table: data, versioned. Figures are list prices in USD per million tokens, as published by
// each provider; `cache_write` only where the provider bills cache writes apart. A model is priced by its
// exact id, or as an entry plus a dated snapshot suffix (`claude-sonnet-4-5-20250929`, `gpt-5-2025-08-07`,
// `-latest`); any other id (`gpt-5.5`, `gpt-5-pro`) has no price rather than a neighbour's.
// Change a price by adding a new table version; a run records the version it priced with.

export interface ModelPrice {
  readonly input: number;
  readonly cached_input: number;
  readonly cache_write?: number;
  readonly output: number;
}

export interface PriceTable {
  readonly version: string;
  readonly models: Readonly<Record<string, ModelPrice>>;
}

export const PRICE_TABLE: PriceTable = Object.freeze({
  version: "evalgate.prices.2026-11-26",
  models: Object.freeze({
    "claude-opus-4-5": { input: 5, cached_input: 0.5, cache_write: 6.25, output: 25 },
    "claude-opus-4-1": { input: 15, cached_input: 1.5, cache_write: 18.75, output: 75 },
    "claude-opus-4": { input: 15, cached_input: 1.5, cache_write: 18.75, output: 75 },
    "claude-sonnet-4-5": { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 },
    "claude-sonnet-4": { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 },
    "claude-haiku-4-5": { input: 1, cached_input: 0.1, cache_write: 1.25, output: 5 },
    "claude-3-5-haiku": { input: 0.8, cached_input: 0.08, cache_write: 1, output: 4 },
    "gpt-5-codex": { input: 1.25, cached_input: 0.125, output: 10 },
    "gpt-5-mini": { input: 0.25, cached_input: 0.025, output: 2 },
    "gpt-5-nano": { input: 0.05, cached_input: 0.005, output: 0.4 },
    "gpt-5": { input: 1.25, cached_input: 0.125, output: 10 },
    "gpt-4.1-mini": { input: 0.4, cached_input: 0.1, output: 1.6 },
    "gpt-4.1": { input: 2, cached_input: 0.5, output: 8 },
    "gpt-4o-mini": { input: 0.15, cached_input: 0.075, output: 0.6 },
    "gpt-4o": { input: 2.5, cached_input: 1.25, output: 10 },
    "o4-mini": { input: 1.1, cached_input: 0.275, output: 4.4 },
    o3: { input: 2, cached_input: 0.5, output: 8 },
    "gemini-2.5-pro": { input: 1.25, cached_input: 0.125, output: 10 },
    "gemini-2.5-flash-lite": { input: 0.1, cached_input: 0.01, output: 0.4 },
    "gemini-2.5-flash": { input: 0.3, cached_input: 0.03, output: 2.5 },
  }),
});

/** The price entry for `model`, or null when the table has none (its cost is then unknown, never 0). */
export function priceOf(table: PriceTable, model: string | null): ModelPrice | null {
  if (model === null) return null;
  const exact = table.models[model];
  if (exact !== undefined) return exact;
  const snapshot = /^(.+?)[-@](\d{8}|\d{4}-\d{2}-\d{2}|latest)$/.exec(model);
  return snapshot === null ? null : (table.models[snapshot[1]!] ?? null);
}
