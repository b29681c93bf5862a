// What evalgate's model bridge metered from the wire: per trial (in its detail) and summed per run (in its
// report). Recorded by the harness from the responses' own usage fields, never from what a SUT says.
import { z } from "zod";
import { UsdSchema } from "./primitives.ts";

const count = z.number().int().min(0);

/** One trial's model calls as the bridge metered them (a trial whose agent ran behind the bridge). */
export const MeteredUsageSchema = z.strictObject({
  requests: count,
  input_tokens: count,
  cached_input_tokens: count,
  cache_write_tokens: count,
  output_tokens: count,
  /** Priced from the price table; null when a call's model has no price there (the cost is then unknown, not 0). */
  cost_usd: UsdSchema.nullable(),
  /** Models without a price, sorted. */
  unpriced_models: z.array(z.string().max(200)),
  /** The price table's version: the source of `cost_usd`. */
  price_table: z.string().min(1).max(200),
  /** Where the model calls went. */
  upstream_host: z.string().min(1).max(300),
});

/**
 * A run's metered sums over the trials it executed behind the bridge (cache hits spent nothing now), beside
 * the part of `total_cost_usd` that is not metered: what SUTs reported about themselves.
 */
export const RunMeteredSchema = z.strictObject({
  /** Executed trials whose model calls the bridge metered. */
  trials: count,
  requests: count,
  input_tokens: count,
  cached_input_tokens: count,
  cache_write_tokens: count,
  output_tokens: count,
  /** Sum of the priced trials' metered cost (part of total_cost_usd). */
  cost_usd: UsdSchema,
  /** Metered trials without a price (a model missing from the table): their cost in total_cost_usd is self-reported. */
  unpriced_trials: count,
  unpriced_models: z.array(z.string().max(200)),
  /** The price table versions the metered cost was priced with, sorted. */
  price_tables: z.array(z.string().min(1).max(200)),
  upstream_hosts: z.array(z.string().min(1).max(300)),
  /** The rest of total_cost_usd: what the SUT reported having spent, not metered from the wire. */
  sut_reported_cost_usd: UsdSchema,
});
