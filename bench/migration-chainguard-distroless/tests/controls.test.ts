// Every case's controls, scored in-process by the rubric (it only parses Dockerfiles, so the whole bench
// takes well under a second here): the reference migration passes, the no-op fails, each near miss fails
// with the failure mode its case names. `evalgate bench check` runs the same controls in the sandbox
// (apps/cli bench-check.test.ts).
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { readCaseControls, readNearMissKinds } from "@eval/registry";
import type { BenchCase } from "@eval/models";
import { scoreCase } from "../rubric.ts";
import { CASES_DIR, caseIds, loadCase } from "./case-fixtures.ts";

const kinds = readNearMissKinds(join(CASES_DIR, "..")).map((k) => k.name);
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function score(benchCase: BenchCase, overlay: string | null) {
  const dir = mkdtempSync(join(tmpdir(), "migration-control-"));
  dirs.push(dir);
  cpSync(benchCase.input_path, dir, { recursive: true });
  if (overlay !== null) cpSync(overlay, dir, { recursive: true });
  return scoreCase(benchCase, { trial_class: "parse_success" }, dir);
}

it("declares seven near-miss kinds", () => {
  expect(kinds).toEqual([
    "unhardened-runtime",
    "floating-tags",
    "runs-as-root",
    "shell-form-command",
    "package-manager-in-final",
    "port-dropped",
    "artifact-dropped",
  ]);
});

it.each(caseIds())("%s: the reference passes, the no-op fails, every declared near miss is caught", (caseId) => {
  const benchCase = loadCase(caseId);
  const controls = readCaseControls(benchCase);
  expect(controls, "controls/controls.json").not.toBeNull();
  expect(controls!.nearMisses.map((n) => n.kind).sort()).toEqual([...kinds].sort());
  const reference = score(benchCase, controls!.reference);
  expect(reference.passed, JSON.stringify(reference.failure_modes)).toBe(true);
  expect(score(benchCase, null).passed).toBe(false);
  for (const nearMiss of controls!.nearMisses) {
    if (!("expect" in nearMiss)) continue;
    const result = score(benchCase, nearMiss.directory);
    expect(result.passed, nearMiss.kind).toBe(false);
    expect(
      result.failure_modes.map((f) => f.code),
      nearMiss.kind,
    ).toContain(nearMiss.expect);
  }
});
