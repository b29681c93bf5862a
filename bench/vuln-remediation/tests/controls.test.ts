// A sampled subset of the bench's controls, scored in-process by the rubric with the install check and
// smoke checks: the reference fix passes, the no-op is judged right, every near miss fails with the failure
// mode its case names. The sample is deterministic: for each near-miss kind the first case (by id) that
// carries it, plus the first negative case. The whole bench goes through `evalgate bench check` in the
// sandbox once, in apps/cli (bench-check.test.ts); this keeps the feedback of the bench's own tests fast.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCaseControls, readNearMissKinds } from "@eval/registry";
import type { BenchCase } from "@eval/models";
import { scoreInstalled } from "../rubric.ts";
import { BENCH_DIR, caseIds, loadCase } from "./case-fixtures.ts";

const kinds = readNearMissKinds(BENCH_DIR).map((k) => k.name);
const cases = caseIds().map(loadCase);
const controlsOf = (benchCase: BenchCase) => readCaseControls(benchCase)!;

function sample(): BenchCase[] {
  const picked = new Set<BenchCase>();
  for (const kind of kinds) {
    const carrier = cases.find((c) => controlsOf(c).nearMisses.some((n) => n.kind === kind && "expect" in n));
    if (carrier !== undefined) picked.add(carrier);
  }
  picked.add(cases.find((c) => c.disposition === "negative")!);
  return [...picked].sort((a, b) => a.case_id.localeCompare(b.case_id));
}

const dirs: string[] = [];
function workspace(benchCase: BenchCase, overlay: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), "vuln-control-"));
  dirs.push(dir);
  cpSync(benchCase.input_path, dir, { recursive: true });
  if (overlay !== null) cpSync(overlay, dir, { recursive: true });
  return dir;
}
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const score = (benchCase: BenchCase, overlay: string | null) =>
  scoreInstalled(benchCase, { trial_class: "parse_success" }, workspace(benchCase, overlay));
const codes = (result: Awaited<ReturnType<typeof score>>) => result.failure_modes.map((f) => f.code);

describe("controls (a sample; the whole bench: `evalgate bench check`)", () => {
  const sampled = sample();

  it("the sample covers every declared near-miss kind and a negative case, with every case carrying controls", () => {
    expect(cases.every((c) => readCaseControls(c) !== null)).toBe(true);
    const covered = new Set(
      sampled.flatMap((c) =>
        controlsOf(c)
          .nearMisses.filter((n) => "expect" in n)
          .map((n) => n.kind),
      ),
    );
    expect([...covered].sort()).toEqual([...kinds].sort());
    expect(sampled.some((c) => c.disposition === "negative")).toBe(true);
    expect(sampled.length).toBeLessThan(cases.length / 2);
  });

  it.each(sampled.map((c) => [c.case_id, c] as const))(
    "%s: the reference passes, the no-op is judged right, each near miss is caught",
    async (_id, benchCase) => {
      const controls = controlsOf(benchCase);
      const negative = benchCase.disposition === "negative";
      const reference = await score(benchCase, controls.reference);
      expect(reference.passed, JSON.stringify(reference.failure_modes)).toBe(true);
      expect((await score(benchCase, null)).passed).toBe(negative);
      for (const nearMiss of controls.nearMisses) {
        if (!("expect" in nearMiss)) continue;
        const result = await score(benchCase, nearMiss.directory);
        expect(result.passed, nearMiss.kind).toBe(false);
        expect(codes(result), nearMiss.kind).toContain(nearMiss.expect);
      }
    },
    120_000,
  );
});
