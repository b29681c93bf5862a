// The repository's shipped benches hold only cassettes a real CLI recorded: the pinned version, in the sandbox
// behind the bridge, against the loopback model stub serving the scripted sessions shipped beside them, for a
// case its adapter runs at all (cli:gemini refuses cases that edit build files, which its CLI cannot do).
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScenario } from "@eval/model-stub";
import type { SutCase } from "@eval/models";
import { getAdapter } from "@eval/cli-subscription-adapters";
import { readCassette, writeCassette } from "./cassette-files.ts";
import { uneditableInputs } from "./limits.ts";

const repo = join(import.meta.dirname, "..", "..", "..");
const benchRoot = join(repo, "bench");
const TASK_CLASSES = ["vuln-remediation", "migration-chainguard-distroless"];

/** The CLI version scripts/agent-clis/ pins for each adapter's npm package. */
const pins = (
  JSON.parse(readFileSync(join(repo, "scripts", "agent-clis", "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  }
).dependencies;

/** Why the cassette in `dir` is not the pinned real CLI's recording against `scenarioSha256` (empty when it is). */
function provenanceProblems(dir: string, scenarioSha256: string): string[] {
  const { meta } = readCassette(dir);
  const provenance = meta.provenance;
  const problems: string[] = [];
  if (meta.synthetic) problems.push("marked synthetic");
  if (provenance === undefined) return [...problems, "records no provenance"];
  if (provenance.model_source !== "scripted") problems.push(`model_source is ${String(provenance.model_source)}`);
  if (provenance.scenario_sha256 !== scenarioSha256)
    problems.push(`scenario ${String(provenance.scenario_sha256)} is not the shipped ${scenarioSha256}`);
  if (provenance.agent_network !== "bridge") problems.push("not recorded behind the model bridge");
  if (provenance.endpoint_host === null || !/^127\.0\.0\.1:\d+$/.test(provenance.endpoint_host))
    problems.push(`endpoint ${String(provenance.endpoint_host)} is not the loopback stub`);
  const pinned = pins[getAdapter(meta.adapter).npmPackage];
  if (meta.cli_version !== pinned) problems.push(`${meta.adapter} ${meta.cli_version} is not the pinned ${pinned}`);
  if (!existsSync(join(dir, "exchanges.jsonl"))) problems.push("holds no wire recording (exchanges.jsonl)");
  return problems;
}

const cases = TASK_CLASSES.flatMap((taskClass) =>
  readdirSync(join(benchRoot, taskClass, "cases"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => [taskClass, entry.name] as const),
);

describe("the shipped benches' cassettes", () => {
  it("are 54, of three adapters, none of Gemini CLI (see docs/adapters.md)", () => {
    expect(cases).toHaveLength(54);
    const adapters = cases.map(
      ([taskClass, id]) => readCassette(join(benchRoot, taskClass, "cases", id, "cassette")).meta.adapter,
    );
    expect([...new Set(adapters)].sort()).toEqual(["claude-code", "codex", "pi"]);
  });

  it.each(cases)("%s/%s: recorded by the pinned real CLI against the shipped scripted sessions", (taskClass, id) => {
    const scenarioSha256 = loadScenario(join(benchRoot, taskClass, "cassette-sessions.yaml")).sha256;
    const dir = join(benchRoot, taskClass, "cases", id, "cassette");
    expect(provenanceProblems(dir, scenarioSha256)).toEqual([]);
    const adapter = getAdapter(readCassette(dir).meta.adapter);
    const sutCase = { case_id: id, task_class: taskClass } as SutCase;
    expect(uneditableInputs(adapter, benchRoot, [sutCase])).toEqual(new Map());
  });

  it("a hand-written cassette, one of another CLI version, or one scripted by another scenario, is named as such", () => {
    const dir = join(benchRoot, "vuln-remediation", "cases", "lodash-template-cve-2021-23337", "cassette");
    expect(provenanceProblems(dir, `sha256:${"0".repeat(64)}`)).toEqual([
      expect.stringMatching(/^scenario sha256:[0-9a-f]{64} is not the shipped sha256:0{64}$/),
    ]);
    const recorded = readCassette(dir);
    const { provenance: _provenance, ...withoutProvenance } = recorded.meta;
    const written = join(mkdtempSync(join(tmpdir(), "evalgate-cassette-")), "cassette");
    writeCassette(written, { ...recorded, meta: { ...withoutProvenance, synthetic: true }, exchanges: null });
    expect(provenanceProblems(written, "x")).toEqual(["marked synthetic", "records no provenance"]);
    writeCassette(written, { ...recorded, meta: { ...recorded.meta, cli_version: "2.1.330" }, exchanges: null });
    expect(provenanceProblems(written, recorded.meta.provenance!.scenario_sha256!)).toEqual([
      `claude-code 2.1.330 is not the pinned ${pins["@anthropic-ai/claude-code"]}`,
      "holds no wire recording (exchanges.jsonl)",
    ]);
  });
});
