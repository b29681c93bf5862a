// What makes a shipped cassette a real CLI's recording rather than a hand-written one, for the benches' tests.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CassetteMetaSchema, parseWire } from "@eval/models";

/** The npm package each adapter's CLI comes from (scripts/agent-clis/package.json pins them). */
const NPM_PACKAGES: Readonly<Record<string, string>> = {
  "claude-code": "@anthropic-ai/claude-code",
  codex: "@openai/codex",
  gemini: "@google/gemini-cli",
  pi: "@mariozechner/pi-coding-agent",
};

/** The CLI version scripts/agent-clis/ pins for each adapter. */
export function pinnedAgentCliVersions(repoRoot: string): Record<string, string> {
  const pins = (
    JSON.parse(readFileSync(join(repoRoot, "scripts", "agent-clis", "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    }
  ).dependencies;
  return Object.fromEntries(Object.entries(NPM_PACKAGES).map(([adapter, name]) => [adapter, pins[name]!]));
}

/**
 * Why the cassette in `dir` is not a recording the pinned real CLI made against the bench's scripted
 * sessions (empty when it is one): marked synthetic, no provenance, not scripted, another scenario than
 * the one shipped beside the bench, a CLI version other than the pinned one, or no wire recording.
 */
export function provenanceProblems(
  dir: string,
  expected: { readonly scenarioSha256: string; readonly versions: Readonly<Record<string, string>> },
): string[] {
  const meta = parseWire(CassetteMetaSchema, JSON.parse(readFileSync(join(dir, "cassette.json"), "utf8")));
  const provenance = meta.provenance;
  const problems: string[] = [];
  if (meta.synthetic) problems.push("marked synthetic");
  if (provenance === undefined) return [...problems, "records no provenance"];
  if (provenance.model_source !== "scripted") problems.push(`model_source is ${String(provenance.model_source)}`);
  if (provenance.scenario_sha256 !== expected.scenarioSha256)
    problems.push(`scenario ${String(provenance.scenario_sha256)} is not the shipped ${expected.scenarioSha256}`);
  if (provenance.agent_network !== "bridge") problems.push("not recorded behind the model bridge");
  if (provenance.endpoint_host === null || !/^127\.0\.0\.1:\d+$/.test(provenance.endpoint_host))
    problems.push(`endpoint ${String(provenance.endpoint_host)} is not the loopback stub`);
  if (meta.cli_version !== expected.versions[meta.adapter])
    problems.push(`${meta.adapter} ${meta.cli_version} is not the pinned ${expected.versions[meta.adapter]}`);
  if (!existsSync(join(dir, "exchanges.jsonl"))) problems.push("holds no wire recording (exchanges.jsonl)");
  return problems;
}
