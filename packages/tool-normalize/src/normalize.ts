import { derive } from "./derive.ts";
import { CANONICAL_TOOL_NAMES, TOOL_TABLE } from "./tool-table.ts";
import type { CanonicalField, Provider, ToolRule } from "./tool-table.ts";

/**
 * A tool call in the canonical vocabulary. `name` is canonical when `canonical` is true, else the
 * agent's own name unchanged. `input` keeps every native field and adds the canonical ones
 * (`file_path`, `command`, `skill`...), so nothing the agent said is lost.
 */
export interface CanonicalToolCall {
  readonly name: string;
  readonly input: Record<string, unknown>;
  readonly original_name: string;
  readonly provider: Provider;
  readonly canonical: boolean;
}

const EXACT = new Map<string, ToolRule>();
const PREFIXES = new Map<Provider, ToolRule[]>();
for (const rule of TOOL_TABLE) {
  if (rule.prefix === true) PREFIXES.set(rule.provider, [...(PREFIXES.get(rule.provider) ?? []), rule]);
  else EXACT.set(`${rule.provider}\u0000${rule.native}`, rule);
}

const CANONICAL = new Set<string>(CANONICAL_TOOL_NAMES);

/** True when `name` is in the canonical vocabulary (`Read`, `Bash`, `Skill`...). */
export function isCanonicalToolName(name: string): boolean {
  return CANONICAL.has(name);
}

function asRecord(input: unknown): Record<string, unknown> {
  if (input !== null && typeof input === "object" && !Array.isArray(input))
    return { ...(input as Record<string, unknown>) };
  return input === undefined || input === null ? {} : { input };
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

/** The table row for this provider's native name: an exact row first, then the longest matching prefix. */
export function findRule(provider: Provider, name: string): ToolRule | undefined {
  const exact = EXACT.get(`${provider}\u0000${name}`);
  if (exact !== undefined) return exact;
  let best: ToolRule | undefined;
  for (const rule of PREFIXES.get(provider) ?? []) {
    if (name.startsWith(rule.native) && (best === undefined || rule.native.length > best.native.length)) best = rule;
  }
  return best;
}

/**
 * Maps one native tool call to the canonical vocabulary. Pure and table-driven (tool-table.ts): a
 * provider's names are rows, not code. Unknown tools pass through unchanged (`canonical: false`).
 * A read done through a shell (`cat`, `sed -n`, `head`) stays `Bash`: the command is exposed as
 * `input.command`, and no guess is made about what it read.
 */
export function normalizeToolCall(
  provider: Provider,
  call: { readonly name: string; readonly input: unknown },
): CanonicalToolCall {
  const input = asRecord(call.input);
  const passThrough: CanonicalToolCall = {
    name: call.name,
    input,
    original_name: call.name,
    provider,
    canonical: false,
  };
  const rule = findRule(provider, call.name);
  if (rule === undefined) return passThrough;

  const suffix = rule.prefix === true ? call.name.slice(rule.native.length) : "";
  let name: string = rule.canonical;
  const added: Record<string, unknown> = {};
  for (const [field, sources] of Object.entries(rule.fields ?? {}) as Array<[CanonicalField, readonly string[]]>) {
    if (present(input[field])) continue;
    const source = sources.find((key) => present(input[key]));
    if (source !== undefined) added[field] = input[source];
  }
  if (rule.suffix_field !== undefined && suffix.trim() !== "" && !present(input[rule.suffix_field])) {
    added[rule.suffix_field] = suffix.trim();
  }
  if (rule.derive !== undefined) {
    const derived = derive(rule.derive, input, suffix);
    if (derived === null) return passThrough;
    if (derived.canonical !== undefined) name = derived.canonical;
    Object.assign(added, derived.fields);
  }
  return { name, input: { ...input, ...added }, original_name: call.name, provider, canonical: true };
}
