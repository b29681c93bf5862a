// The bench as the harness loads it: registration, taxonomy, breakdown keys, digest-verified cases.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadCases, loadTaskClass, TaskClassRegistry } from "@eval/registry";
import { BREAKDOWN_KEYS } from "../breakdown-keys.ts";
import { BENCH_DIR } from "./case-fixtures.ts";

const load = async () => {
  const taskClass = await loadTaskClass("vuln-remediation", {
    benchRoot: join(BENCH_DIR, ".."),
    registry: new TaskClassRegistry(),
  });
  return { taskClass, cases: await loadCases(taskClass) };
};

it("loads with every case digest matching cases/digests.yaml (re-sign after editing a case)", async () => {
  const { taskClass, cases } = await load();
  expect(cases).toHaveLength(42);
  expect(cases.length).toBeGreaterThanOrEqual(taskClass.minCases);
  // Gold's floor (docs/trust-tiers.yaml: 32 cases, 10 held out) with room: 20 held out at least.
  expect(cases.filter((c) => c.curation_class === "held-out").length).toBeGreaterThanOrEqual(20);
  expect(cases.filter((c) => c.curation_class === "rag-corpus-derived").length).toBeGreaterThanOrEqual(5);
  expect(cases.filter((c) => c.disposition === "negative").length).toBeGreaterThanOrEqual(3);
  expect(new Set(cases.map((c) => c.difficulty))).toEqual(new Set(["easy", "medium", "hard"]));
  expect(cases.every((c) => c.cassette_path !== null)).toBe(true);
  expect([...taskClass.breakdownKeys].sort()).toEqual([...BREAKDOWN_KEYS].sort());
});

it("declares in failure_modes.yaml every code the rubric can emit, with the severity it emits", async () => {
  const { taskClass } = await load();
  const source = readFileSync(join(BENCH_DIR, "rubric.ts"), "utf8");
  const emitted = [...source.matchAll(/(?:code: |add\()\s*"([a-z_.]+)",\s*(?:severity: )?"(block|warn|info)"/g)].map(
    (m) => [m[1]!, m[2]!] as const,
  );
  expect(emitted.length).toBeGreaterThanOrEqual(11);
  for (const [code, severity] of emitted) expect(taskClass.failureModeTaxonomy[code]?.severity, code).toBe(severity);
  expect(Object.keys(taskClass.failureModeTaxonomy).sort()).toEqual([...new Set(emitted.map(([code]) => code))].sort());
});
