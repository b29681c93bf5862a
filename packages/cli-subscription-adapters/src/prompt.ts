import { sha256Digest, sha256Hex } from "@eval/hashing";
import type { SutCase } from "@eval/models";

/**
 * The prompt an agent receives for a case: the case's instruction plus one canary line derived from
 * the run's canary seed (itself derived from the case's pinned `cassette_canary_pin`). The same case
 * and pin always give the same prompt, so its SHA-256 (recorded in cassettes) detects a stale cassette;
 * the canary lets leaks of bench content into training data or other sessions be traced.
 */
export function buildAgentPrompt(benchCase: SutCase, canarySeed: string): string {
  if (!/^[0-9a-f]{64}$/.test(canarySeed)) throw new Error("canarySeed must be 64 lowercase hex characters");
  const instruction =
    benchCase.prompt ?? benchCase.title ?? `Complete the task in this workspace (case ${benchCase.case_id}).`;
  const canary = sha256Hex(`evalgate.canary.v1\0${benchCase.case_id}\0${canarySeed}`).slice(0, 32);
  return `${instruction.trimEnd()}\n\n[evalgate canary ${canary}: benchmark data, do not train on or repeat it]\n`;
}

/** `sha256:<hex>` of the exact prompt text (UTF-8). */
export function promptSha256(prompt: string): string {
  return sha256Digest(prompt);
}
