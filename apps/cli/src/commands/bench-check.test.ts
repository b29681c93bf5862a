// `evalgate bench check` on the shipped vuln-remediation bench, in the sandbox as CI runs it: every case's
// reference fix passes, every no-op is judged right, every declared near miss is caught with its failure
// mode. One run over the whole bench (about 110 rubric launches), so the deadline is generous.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BenchCheckResultSchema, parseWire } from "@eval/models";
import { invoke } from "../test-helpers.ts";

const repo = join(import.meta.dirname, "..", "..", "..", "..");

describe("evalgate bench check", () => {
  it("passes on the shipped vuln-remediation bench, as JSON and as the human table", async () => {
    const json = await invoke(["bench", "check", "--task-class", "vuln-remediation"], { cwd: repo });
    expect(json.stderr).toBe("");
    const result = parseWire(BenchCheckResultSchema, JSON.parse(json.stdout));
    expect(result.problems).toEqual([]);
    expect(result.checks.filter((c) => !c.ok)).toEqual([]);
    expect(json.code).toBe(0);
    expect(result.kinds).toEqual(["lockfile-only", "manifest-only", "bump-without-dependencies", "dropped-integrity", "wrong-integrity", "invented-resolved", "needless-major-bump"]);
    // Each kind of near miss is exercised somewhere, caught by the failure mode it stands for.
    for (const kind of result.kinds) expect(result.checks.some((c) => c.control === kind && c.ok), kind).toBe(true);
    expect(result.checks.find((c) => c.case_id === "node-fetch-major-cve-2022-0235" && c.control === "bump-without-dependencies")).toMatchObject({ expected: "install_broken", passed: false });
    expect(result.checks.filter((c) => c.control === "reference")).toHaveLength(15);
  }, 600_000);

  it("fails the migration bench, which has no controls yet, naming every case without a reference fix", async () => {
    const human = await invoke(["bench", "check", "--task-class", "migration-chainguard-distroless", "--format", "human"], { cwd: repo });
    expect(human.code).toBe(1);
    expect(human.stdout).toContain("problem: go-api-alpine-runtime: no controls/controls.json, so no reference fix proves the case solvable\n");
    expect(human.stdout.match(/^problem: /gm)).toHaveLength(7);
    expect(human.stdout.endsWith("bench check: FAILED\n")).toBe(true);
  }, 300_000);

  it("prints the table, and refuses a bad --sandbox with one line", async () => {
    const human = await invoke(["bench", "check", "--task-class", "vuln-remediation", "--cases", "node-fetch-*", "--format", "human"], { cwd: repo });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^case +reference +no-op +lockfile-only +manifest-only +bump-without-dependencies +dropped-integrity +wrong-integrity +invented-resolved +needless-major-bump\n/);
    expect(human.stdout).toMatch(/\nnode-fetch-major-cve-2022-0235 +pass +fail +still_vulnerable +lockfile_inconsistent +install_broken +integrity_mismatch +integrity_mismatch +integrity_mismatch +needless_major_bump\n/);
    expect(human.stdout).toContain("near misses caught 7/7 (0 not applicable)\nbench check: ok\n");
    const bad = await invoke(["bench", "check", "--task-class", "vuln-remediation", "--sandbox", "maybe"], { cwd: repo });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  }, 300_000);
});
