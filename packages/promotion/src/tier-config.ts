import { readFile } from "node:fs/promises";
import { TrustTiersFileSchema, safeParseWire } from "@eval/models";
import type { TrustTiersFile } from "@eval/models";
import { EvalError } from "@eval/errors";
import { parse as parseYaml } from "yaml";

/** docs/trust-tiers.yaml, validated: tiers lowest first, each task class's current tier. */
export interface TierConfig extends TrustTiersFile {
  /** The file it was loaded from: the only path by which a tier changes (a reviewed edit). */
  readonly source: string;
}

/**
 * Loads and validates the trust-tiers file: the one reader of it (the fence takes what this returns).
 * Any problem (unreadable, not YAML, unknown field, a tier name that is not defined, thresholds out of
 * order) is an EVAL_TIER_CONFIG_INVALID naming the file and field. With `optional`, a file that does
 * not exist gives null (the fence then applies its default floor) instead of an error.
 */
export async function loadTierConfig(path: string): Promise<TierConfig>;
export async function loadTierConfig(path: string, options: { readonly optional: true }): Promise<TierConfig | null>;
export async function loadTierConfig(
  path: string,
  options: { readonly optional?: boolean } = {},
): Promise<TierConfig | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (options.optional === true && (error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new EvalError(
      "EVAL_TIER_CONFIG_INVALID",
      `cannot read the trust-tiers file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        hint: "pass --trust-tiers <path> or set EVALGATE_TRUST_TIERS (default docs/trust-tiers.yaml)",
        cause: error,
      },
    );
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new EvalError(
      "EVAL_TIER_CONFIG_INVALID",
      `${path} is not valid YAML: ${(error as Error).message.split("\n")[0]}`,
      { cause: error },
    );
  }
  const parsed = safeParseWire(TrustTiersFileSchema, data);
  if (!parsed.success) {
    const issue = parsed.issues[0]!;
    throw new EvalError("EVAL_TIER_CONFIG_INVALID", `${path}: ${issue.path}: ${issue.message}`, {
      details: { issues: parsed.issues },
    });
  }
  return Object.freeze({ ...parsed.data, source: path });
}
