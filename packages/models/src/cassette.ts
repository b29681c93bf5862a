import { z } from "zod";
import { Sha256DigestSchema, TimestampSchema, UsdSchema } from "./primitives.ts";
import { AGENT_ADAPTER_NAMES } from "./names.ts";

/** The agent CLIs evalgate can drive live and replay from cassettes. */
export const AgentAdapterNameSchema = z.enum(AGENT_ADAPTER_NAMES);

export const CASSETTE_SCHEMA_VERSION = "evalgate.cassette.v1";

/**
 * `cases/<case-id>/cassette/cassette.json`: metadata of one recorded agent session. Beside it:
 * `stdout.jsonl` (the CLI's raw stream, byte for byte), `stderr.txt`, and `workspace.diff` (a unified
 * diff, `a/` and `b/` prefixes, of what the agent changed in its scratch copy of `input/`).
 * `evalgate run --sut cli:<adapter> --record` writes these; the `replay` SUT reads exactly these.
 */
export const CassetteMetaSchema = z.strictObject({
  schema_version: z.literal(CASSETTE_SCHEMA_VERSION),
  adapter: AgentAdapterNameSchema,
  cli_version: z.string().min(1),
  /** argv after redaction (secrets replaced by `<redacted>`); the prompt stays. */
  argv_redacted: z.array(z.string()),
  /** SHA-256 of the exact prompt given; replay recomputes it from the case's canary pin and refuses a mismatch. */
  prompt_sha256: Sha256DigestSchema,
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  stdout_capped: z.boolean(),
  duration_ms: z.number().int().min(0),
  /** What the CLI reported the session cost, when it did. */
  cost_usd: UsdSchema.nullable(),
  recorded_at: TimestampSchema,
  /** True when written by hand in the CLI's format rather than recorded from a live run. */
  synthetic: z.boolean(),
  notes: z.string().max(2000).optional(),
  /**
   * Where a recorded session came from (absent in cassettes written before it was recorded, and in
   * synthetic ones): the SHA-256 of the file the CLI's binary path resolves to (for a Node CLI, its entry
   * script), how the agent reached its model, and the host model calls went to through the bridge (null
   * with the host's network: evalgate does not see where the CLI connects then).
   */
  provenance: z
    .strictObject({
      cli_binary_sha256: Sha256DigestSchema,
      agent_network: z.enum(["bridge", "host"]),
      endpoint_host: z.string().min(1).max(300).nullable(),
      /**
       * Who answered the model calls: `scripted` when the endpoint identified itself as evalgate's model stub
       * (its scenario's digest beside it), `live` otherwise (a provider or gateway).
       */
      model_source: z.enum(["scripted", "live"]).optional(),
      /** SHA-256 of the scenario the endpoint served, when it was evalgate's scripted model stub (absent otherwise). */
      scenario_sha256: Sha256DigestSchema.optional(),
    })
    .optional(),
});
