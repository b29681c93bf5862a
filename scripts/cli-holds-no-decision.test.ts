// The CLI only wires: which runs are evidence, how a run is judged per tier and what a baseline says are
// decided in @eval/promotion, @eval/compare and @eval/report-data. This check keeps apps/cli from growing
// them back: no shipped CLI file may walk the chain's records or reach into the promotion gate's internals.
// It is proven on planted violations, so a rename that blinds it fails here.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");
const cliSources = join(repo, "apps", "cli", "src");

/** Names whose use in the CLI means it decides: reading records itself, or judging outside the one rule. */
const FORBIDDEN: ReadonlyArray<{ readonly name: string; readonly why: string }> = [
  { name: "recordsNewestFirst", why: "walks the chain's records (use @eval/report-data or a promotion/compare call)" },
  { name: "findLatestRecord", why: "picks a run from the chain (a library decides which run)" },
  { name: "chainedRunIds", why: "reads the chain's run ids" },
  { name: "PromotionGate", why: "calls the gate directly (issueVerdict / tierVerdicts judge)" },
  { name: "chooseEvidence", why: "chooses the evidence itself (issueVerdict does)" },
  { name: "notDefaultEvidence", why: "applies the evidence rule itself" },
  { name: "poolEvidence", why: "pools attempts itself" },
  { name: "checkRecordedFigures", why: "recomputes figures itself" },
  { name: "baselineSummary", why: "computes a baseline itself (@eval/report-data does)" },
];

/** The forbidden names a source uses as identifiers (imports and calls; comments ignored). */
function decisionsIn(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
  return FORBIDDEN.filter(({ name }) => new RegExp(`\\b${name}\\b`).test(code)).map(({ name }) => name);
}

function shippedSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__fixtures__" ? [] : shippedSources(path);
    return entry.name.endsWith(".ts") && !/\.test(-helpers)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe("apps/cli holds no decision", () => {
  it("no shipped CLI source walks the chain or calls the promotion gate's internals", () => {
    const found = shippedSources(cliSources).flatMap((path) =>
      decisionsIn(readFileSync(path, "utf8")).map(
        (name) => `${relative(repo, path)}: ${name} (${FORBIDDEN.find((f) => f.name === name)!.why})`,
      ),
    );
    expect(found).toEqual([]);
  });

  it("catches planted violations: an import and a dynamic import of chain walking, a direct gate call", () => {
    expect(decisionsIn(`import { recordsNewestFirst } from "@eval/audit-chain";`)).toEqual(["recordsNewestFirst"]);
    expect(
      decisionsIn(
        `const { PromotionGate } = await import("@eval/promotion");\nnew PromotionGate(config).evaluate(input);`,
      ),
    ).toEqual(["PromotionGate"]);
    expect(
      decisionsIn(
        `const [{ chooseEvidence }, { baselineSummary }] = await Promise.all([import("@eval/promotion"), import("@eval/compare")]);`,
      ),
    ).toEqual(["chooseEvidence", "baselineSummary"]);
    expect(
      decisionsIn(
        `// recordsNewestFirst is not used here\n/* PromotionGate */ const url = "http://x"; issueVerdict(options);`,
      ),
    ).toEqual([]);
    expect(shippedSources(cliSources).length).toBeGreaterThan(20);
  });
});
