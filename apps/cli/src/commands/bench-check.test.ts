// `evalgate bench check` on the shipped benches, in the sandbox as CI runs it: every case's reference fix
// passes, every no-op is judged right, every declared near miss is caught with its failure mode. This is
// the suite's one check of each whole bench (vuln-remediation: 42 cases, about 300 rubric launches;
// migration: 12 cases, 107), so the deadlines are generous; other tests check sampled cases.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BenchCheckResultSchema, parseWire } from "@eval/models";
import { invoke } from "../test-helpers.ts";

const repo = join(import.meta.dirname, "..", "..", "..", "..");

describe("evalgate bench check", () => {
  it("passes on the shipped vuln-remediation bench", async () => {
    const json = await invoke(["bench", "check", "--task-class", "vuln-remediation"], { cwd: repo });
    expect(json.stderr).toBe("");
    const result = parseWire(BenchCheckResultSchema, JSON.parse(json.stdout));
    expect(result.problems).toEqual([]);
    expect(result.checks.filter((c) => !c.ok)).toEqual([]);
    expect(json.code).toBe(0);
    expect(result.kinds).toEqual([
      "lockfile-only",
      "manifest-only",
      "bump-without-dependencies",
      "dropped-integrity",
      "wrong-integrity",
      "invented-resolved",
      "needless-major-bump",
    ]);
    // Each kind of near miss is exercised somewhere, caught by the failure mode it stands for.
    for (const kind of result.kinds)
      expect(
        result.checks.some((c) => c.control === kind && c.ok),
        kind,
      ).toBe(true);
    expect(
      result.checks.find(
        (c) => c.case_id === "node-fetch-major-cve-2022-0235" && c.control === "bump-without-dependencies",
      ),
    ).toMatchObject({ expected: "install_broken", passed: false });
    expect(result.checks.filter((c) => c.control === "reference")).toHaveLength(42);
    // Every negative case is proven by its no-op passing; every positive case by its reference.
    expect(result.checks.filter((c) => c.control === "no-op" && c.expected === "pass").length).toBeGreaterThanOrEqual(
      3,
    );
  }, 1_200_000);

  it("passes on the shipped migration bench: 12 references, every near miss caught", async () => {
    const human = await invoke(
      ["bench", "check", "--task-class", "migration-chainguard-distroless", "--format", "human"],
      { cwd: repo },
    );
    expect(human.code, human.stdout).toBe(0);
    expect(human.stdout).toMatch(
      /^case +reference +no-op +unhardened-runtime +floating-tags +runs-as-root +shell-form-command +package-manager-in-final +port-dropped +artifact-dropped\n/,
    );
    expect(human.stdout).toMatch(
      /\ngo-api-alpine-runtime +pass +fail +base_not_hardened +image_unpinned +runs_as_root +shell_form_in_final +package_manager_in_final +ports_changed +artifact_missing\n/,
    );
    expect(human.stdout).toContain(
      "migration-chainguard-distroless: 12 cases; reference fixes passed 12/12, no-ops judged right 12/12, near misses caught 83/83 (1 not applicable)\nbench check: ok\n",
    );
  }, 600_000);

  it("prints the table, and refuses a bad --sandbox with one line", async () => {
    const human = await invoke(
      ["bench", "check", "--task-class", "vuln-remediation", "--cases", "node-fetch-*", "--format", "human"],
      { cwd: repo },
    );
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^case +reference +no-op +lockfile-only +manifest-only +bump-without-dependencies +dropped-integrity +wrong-integrity +invented-resolved +needless-major-bump\n/,
    );
    expect(human.stdout).toMatch(
      /\nnode-fetch-major-cve-2022-0235 +pass +fail +still_vulnerable +lockfile_inconsistent +install_broken +integrity_mismatch +integrity_mismatch +integrity_mismatch +needless_major_bump\n/,
    );
    expect(human.stdout).toContain("near misses caught 7/7 (0 not applicable)\nbench check: ok\n");
    const bad = await invoke(["bench", "check", "--task-class", "vuln-remediation", "--sandbox", "maybe"], {
      cwd: repo,
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  }, 300_000);
});
