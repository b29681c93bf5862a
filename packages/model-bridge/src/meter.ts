import type { PriceTable } from "./price-table.ts";
import { priceOf } from "./price-table.ts";
import type { TokenUsage } from "./protocols.ts";

/** What one bridge metered: every model call of one case trial, from the responses' own usage fields. */
export interface MeteredFigures {
  readonly requests: number;
  readonly input_tokens: number;
  readonly cached_input_tokens: number;
  readonly cache_write_tokens: number;
  readonly output_tokens: number;
  /** Priced from the table; null when any call's model has no price (then the cost is unknown, not 0). */
  readonly cost_usd: number | null;
  /** Models that had no price, so `cost_usd` is null. */
  readonly unpriced_models: readonly string[];
  readonly price_table: string;
}

/** The cost of one response's usage at a model's price (USD), or null when the table has no price. */
export function costOf(table: PriceTable, model: string | null, usage: TokenUsage): number | null {
  const price = priceOf(table, model);
  if (price === null) return null;
  const plain = Math.max(0, usage.input_tokens - usage.cached_input_tokens - usage.cache_write_tokens);
  const writeRate = price.cache_write ?? price.input;
  return (
    (plain * price.input +
      usage.cached_input_tokens * price.cached_input +
      usage.cache_write_tokens * writeRate +
      usage.output_tokens * price.output) /
    1_000_000
  );
}

/** Sums the usage of one bridge's model calls. */
export class Meter {
  readonly #table: PriceTable;
  #requests = 0;
  #input = 0;
  #cached = 0;
  #cacheWrite = 0;
  #output = 0;
  #cost = 0;
  readonly #unpriced = new Set<string>();

  constructor(table: PriceTable) {
    this.#table = table;
  }

  /** A model call about to be forwarded. */
  countRequest(): void {
    this.#requests += 1;
  }

  /** A response's usage; returns its cost (null when unpriced). */
  add(model: string | null, usage: TokenUsage): number | null {
    this.#input += usage.input_tokens;
    this.#cached += usage.cached_input_tokens;
    this.#cacheWrite += usage.cache_write_tokens;
    this.#output += usage.output_tokens;
    const cost = costOf(this.#table, model, usage);
    if (cost === null) this.#unpriced.add(model ?? "(no model named)");
    else this.#cost += cost;
    return cost;
  }

  /** Spend so far, counting only priced calls (a budget can only act on what it can price). */
  get pricedCostUsd(): number {
    return this.#cost;
  }

  get requests(): number {
    return this.#requests;
  }

  figures(): MeteredFigures {
    return {
      requests: this.#requests,
      input_tokens: this.#input,
      cached_input_tokens: this.#cached,
      cache_write_tokens: this.#cacheWrite,
      output_tokens: this.#output,
      cost_usd: this.#unpriced.size > 0 ? null : this.#cost,
      unpriced_models: [...this.#unpriced].sort(),
      price_table: this.#table.version,
    };
  }
}
