import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { changedFiles } from "@eval/rubric-protocol";
import rubric, { readExpectation, scoreCase } from "../rubric.ts";
import { BREAKDOWN_KEYS } from "../breakdown-keys.ts";
import {
  caseIds,
  cleanupWorkspaces,
  freshWorkspace,
  harnessOutputFor,
  loadCase,
  replayedWorkspace,
} from "./case-fixtures.ts";

afterAll(cleanupWorkspaces);

const ok = { trial_class: "parse_success" };
const codes = (score: { failure_modes: ReadonlyArray<{ code: string }> }) =>
  score.failure_modes.map((f) => f.code).sort();

function editJson(dir: string, file: string, edit: (value: Record<string, any>) => void): void {
  const value = JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, any>;
  edit(value);
  writeFileSync(join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
}

describe("every recorded session, replayed onto its case", () => {
  // What each recorded session shows (its scripted session in cassette-sessions.yaml); the rubric must say exactly that.
  const verdicts: Record<string, { passed: boolean; codes: string[]; score: number }> = {
    "braces-transitive-cve-2024-4068": { passed: true, codes: [], score: 1 },
    "cross-spawn-redos-cve-2024-21538": { passed: true, codes: [], score: 1 },
    "express-open-redirect-cve-2024-29041": {
      passed: false,
      codes: ["agent_refused", "no_change", "still_vulnerable"],
      score: 0,
    },
    "follow-redirects-two-advisories": { passed: false, codes: ["still_vulnerable"], score: 0.15 },
    "json5-proto-1x-cve-2022-46175": { passed: true, codes: [], score: 1 },
    "lodash-template-cve-2021-23337": { passed: true, codes: [], score: 1 },
    "micromatch-redos-cve-2024-4067": { passed: true, codes: [], score: 1 },
    "minimist-transitive-cve-2021-44906": { passed: true, codes: [], score: 1 },
    "node-fetch-major-cve-2022-0235": { passed: true, codes: [], score: 1 },
    "path-to-regexp-via-express-cve-2024-45296": { passed: true, codes: [], score: 1 },
    "postcss-line-return-cve-2023-44270": { passed: false, codes: ["collateral_change"], score: 0.85 },
    "semver-already-patched-negative": { passed: true, codes: [], score: 1 },
    "semver-redos-6x-cve-2022-25883": { passed: false, codes: ["needless_major_bump"], score: 0.85 },
    "tough-cookie-via-request-cve-2023-26136": { passed: true, codes: [], score: 1 },
    "ws-headers-dos-7x-cve-2024-37890": { passed: true, codes: [], score: 1 },
    // The grown cases' sessions each perform the case's reference fix (scripts/grown-case-specs.ts).
    "qs-proto-6x-cve-2022-24999": { passed: true, codes: [], score: 1 },
    "moment-two-advisories": { passed: true, codes: [], score: 1 },
    "axios-xsrf-1x-cve-2023-45857": { passed: true, codes: [], score: 1 },
    "axios-xsrf-0x-line-cve-2023-45857": { passed: true, codes: [], score: 1 },
    "ansi-regex-transitive-cve-2021-3807": { passed: true, codes: [], score: 1 },
    "glob-parent-redos-cve-2020-28469": { passed: true, codes: [], score: 1 },
    "nth-check-via-css-select-cve-2021-3803": { passed: true, codes: [], score: 1 },
    "word-wrap-redos-cve-2023-26115": { passed: true, codes: [], score: 1 },
    "decode-uri-component-via-query-string-cve-2022-38900": { passed: true, codes: [], score: 1 },
    "terser-redos-5x-cve-2022-25858": { passed: true, codes: [], score: 1 },
    "ua-parser-js-redos-cve-2022-25927": { passed: true, codes: [], score: 1 },
    "undici-cookie-redirect-cve-2023-45143": { passed: true, codes: [], score: 1 },
    "cookie-name-chars-cve-2024-47764": { passed: true, codes: [], score: 1 },
    "tar-nested-folders-cve-2024-28863": { passed: true, codes: [], score: 1 },
    "ip-ispublic-cve-2023-42282": { passed: true, codes: [], score: 1 },
    "xml2js-proto-cve-2023-0842": { passed: true, codes: [], score: 1 },
    "minimatch-redos-3x-cve-2022-3517": { passed: true, codes: [], score: 1 },
    "shell-quote-injection-cve-2021-42740": { passed: true, codes: [], score: 1 },
    "async-proto-2x-cve-2021-43138": { passed: true, codes: [], score: 1 },
    "marked-two-redos-advisories": { passed: true, codes: [], score: 1 },
    "jsonwebtoken-major-two-advisories": { passed: true, codes: [], score: 1 },
    "qs-via-request-lockfile-only": { passed: true, codes: [], score: 1 },
    "minimist-via-optimist-override": { passed: true, codes: [], score: 1 },
    "hosted-git-info-transitive-cve-2021-23362": { passed: true, codes: [], score: 1 },
    "nanoid-valueof-cve-2021-23566": { passed: true, codes: [], score: 1 },
    "lodash-already-patched-negative": { passed: true, codes: [], score: 1 },
    "path-to-regexp-express-patched-negative": { passed: true, codes: [], score: 1 },
  };

  it("covers every case in the bench", () => {
    expect(Object.keys(verdicts).sort()).toEqual(caseIds());
  });

  it.each(caseIds())("%s", async (caseId) => {
    const benchCase = loadCase(caseId);
    const workspace = replayedWorkspace(benchCase);
    const score = await rubric.score(benchCase, harnessOutputFor(benchCase), { workspacePath: workspace });
    const want = verdicts[caseId]!;
    expect({ passed: score.passed, codes: codes(score), score: score.score }).toEqual(want);
    expect(Object.keys(score.breakdown).sort()).toEqual([...BREAKDOWN_KEYS].sort());
    for (const value of Object.values(score.breakdown)) expect(value).toBeGreaterThanOrEqual(0);
  });

  it("names the advisory that a half fix leaves open", () => {
    const benchCase = loadCase("follow-redirects-two-advisories");
    const score = scoreCase(benchCase, ok, replayedWorkspace(benchCase));
    expect(score.breakdown.advisories_fixed).toBe(0.5);
    const detail = score.failure_modes.find((f) => f.code === "still_vulnerable")?.detail ?? "";
    expect(detail).toContain("node_modules/follow-redirects@1.15.4 is affected by GHSA-cxjh-pqwp-8mfp");
    expect(detail).not.toContain("GHSA-jchw-25xp-jwwc");
  });

  it("names the collateral edits", () => {
    const benchCase = loadCase("postcss-line-return-cve-2023-44270");
    const detail = scoreCase(benchCase, ok, replayedWorkspace(benchCase)).failure_modes[0]!.detail!;
    expect(detail).toContain("src/build-css.js changed");
    expect(detail).toContain("dependencies.dotenv: ^16.0.3 -> ^16.4.5");
  });
});

describe("the untouched inputs", () => {
  it.each(caseIds())("%s is judged as the advisory says", (caseId) => {
    const benchCase = loadCase(caseId);
    const score = scoreCase(benchCase, ok, freshWorkspace(benchCase));
    if (benchCase.disposition === "negative") {
      expect(score.passed).toBe(true);
    } else {
      // Every positive case really is vulnerable as shipped, and doing nothing scores 0.
      expect(codes(score)).toEqual(["no_change", "still_vulnerable"]);
      expect(score.score).toBe(0);
      expect(score.breakdown.lockfile_consistent).toBe(1);
    }
  });

  it.each(caseIds())("%s: advisory.json in input agrees with expected/", (caseId) => {
    const benchCase = loadCase(caseId);
    const advisory = JSON.parse(readFileSync(join(benchCase.input_path, "advisory.json"), "utf8")) as {
      advisories: Array<{ id: string; vulnerable_range: string; package: string }>;
    };
    const expectation = readExpectation(benchCase.expected_path);
    expect(advisory.advisories.map((a) => [a.id, a.vulnerable_range, a.package])).toEqual(
      expectation.advisories.map((a) => [a.id, a.vulnerable_range, expectation.package]),
    );
  });
});

describe("adversarial workspaces", () => {
  const lodash = () => loadCase("lodash-template-cve-2021-23337");

  it("a package.json bump without a lockfile refresh is inconsistent and still vulnerable", () => {
    const benchCase = lodash();
    const ws = freshWorkspace(benchCase);
    editJson(ws, "package.json", (p) => (p.dependencies.lodash = "^4.17.21"));
    const score = scoreCase(benchCase, ok, ws);
    expect(codes(score)).toEqual(["lockfile_inconsistent", "still_vulnerable"]);
    expect(score.failure_modes.find((f) => f.code === "lockfile_inconsistent")!.detail).toContain(
      "lodash is locked at 4.17.20, outside package.json's ^4.17.21",
    );
    expect(score.passed).toBe(false);
  });

  it("a lockfile-only fix of a direct dependency leaves the declared floor vulnerable", () => {
    const benchCase = lodash();
    const ws = freshWorkspace(benchCase);
    editJson(ws, "package-lock.json", (l) => {
      l.packages["node_modules/lodash"].version = "4.17.21";
      l.packages["node_modules/lodash"].integrity =
        "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg==";
    });
    const score = scoreCase(benchCase, ok, ws);
    expect(codes(score)).toEqual(["still_vulnerable"]);
    expect(score.breakdown).toMatchObject({ lockfile_fixed: 1, manifest_fixed: 0, advisories_fixed: 0 });
    expect(score.failure_modes[0]!.detail).toContain('package.json dependencies.lodash "^4.17.20" admits 4.17.20');
  });

  it("a wildcard range admits every version", () => {
    const benchCase = lodash();
    const ws = freshWorkspace(benchCase);
    editJson(ws, "package.json", (p) => (p.dependencies.lodash = "*"));
    editJson(ws, "package-lock.json", (l) => {
      l.packages[""].dependencies.lodash = "*";
      l.packages["node_modules/lodash"].version = "4.17.21";
      l.packages["node_modules/lodash"].integrity =
        "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg==";
    });
    expect(codes(scoreCase(benchCase, ok, ws))).toEqual(["still_vulnerable"]);
  });

  it("an override that pins an affected version is still vulnerable", () => {
    const benchCase = loadCase("tough-cookie-via-request-cve-2023-26136");
    const ws = replayedWorkspace(benchCase);
    editJson(ws, "package.json", (p) => (p.overrides["tough-cookie"] = "4.1.2"));
    const score = scoreCase(benchCase, ok, ws);
    expect(codes(score)).toContain("still_vulnerable");
    expect(score.failure_modes.find((f) => f.code === "still_vulnerable")!.detail).toContain(
      'package.json overrides.tough-cookie "4.1.2"',
    );
  });

  it("an override of an unrelated package is collateral", () => {
    const benchCase = loadCase("tough-cookie-via-request-cve-2023-26136");
    const ws = replayedWorkspace(benchCase);
    editJson(ws, "package.json", (p) => (p.overrides.qs = "^6.5.3"));
    const score = scoreCase(benchCase, ok, ws);
    expect(codes(score)).toEqual(["collateral_change"]);
    expect(score.failure_modes[0]!.detail).toContain("overrides for qs");
  });

  it("a nested copy that stays affected is found", () => {
    const benchCase = lodash();
    const ws = replayedWorkspace(benchCase);
    editJson(ws, "package-lock.json", (l) => {
      l.packages["node_modules/some-tool"] = { version: "1.0.0", dependencies: { lodash: "4.17.15" } };
      l.packages["node_modules/some-tool/node_modules/lodash"] = { version: "4.17.15" };
    });
    const score = scoreCase(benchCase, ok, ws);
    expect(score.breakdown.lockfile_fixed).toBe(0.5);
    expect(score.failure_modes.find((f) => f.code === "still_vulnerable")!.detail).toContain(
      "node_modules/some-tool/node_modules/lodash@4.17.15",
    );
  });

  it("a dependency that resolves to nothing makes the lockfile inconsistent", () => {
    const benchCase = lodash();
    const ws = replayedWorkspace(benchCase);
    editJson(
      ws,
      "package-lock.json",
      (l) => (l.packages["node_modules/lodash"].dependencies = { "left-pad": "^1.3.0" }),
    );
    const detail = scoreCase(benchCase, ok, ws).failure_modes.find((f) => f.code === "lockfile_inconsistent")!.detail;
    expect(detail).toContain("node_modules/lodash needs left-pad@^1.3.0, which is not in package-lock.json");
  });

  it("an entry stripped of its version cannot pass as fixed", () => {
    const benchCase = lodash();
    const ws = freshWorkspace(benchCase);
    editJson(ws, "package.json", (p) => (p.dependencies.lodash = "^4.17.21"));
    editJson(ws, "package-lock.json", (l) => {
      l.packages[""].dependencies.lodash = "^4.17.21";
      delete l.packages["node_modules/lodash"].version;
    });
    const score = scoreCase(benchCase, ok, ws);
    expect(codes(score)).toEqual(["lockfile_inconsistent"]);
    expect(score.failure_modes[0]!.detail).toContain("node_modules/lodash has no valid version");
  });

  it("a lockfile of the wrong version is rejected", () => {
    const benchCase = lodash();
    const ws = replayedWorkspace(benchCase);
    editJson(ws, "package-lock.json", (l) => (l.lockfileVersion = 1));
    expect(codes(scoreCase(benchCase, ok, ws))).toContain("lockfile_inconsistent");
  });

  it("a malformed or missing package.json is project_unreadable, not a crash", () => {
    const benchCase = lodash();
    const ws = freshWorkspace(benchCase);
    writeFileSync(join(ws, "package.json"), "{ not json");
    rmSync(join(ws, "package-lock.json"));
    const score = scoreCase(benchCase, ok, ws);
    expect(codes(score)).toEqual(["project_unreadable"]);
    expect(score.failure_modes[0]!.detail).toMatch(/package.json is not valid JSON.*package-lock.json is missing/);
    writeFileSync(join(ws, "package.json"), "[1, 2]");
    expect(scoreCase(benchCase, ok, ws).failure_modes[0]!.detail).toContain("package.json is not a JSON object");
  });

  it("a change on the negative case is flagged and fails the case", () => {
    const benchCase = loadCase("semver-already-patched-negative");
    const ws = freshWorkspace(benchCase);
    writeFileSync(join(ws, "src", "release-notes.js"), "// rewritten\n");
    const score = scoreCase(benchCase, ok, ws);
    expect(codes(score)).toEqual(["change_on_negative"]);
    expect(score.passed).toBe(false);
    expect(score.breakdown.scope_clean).toBe(0);
  });

  it("a fix through a new major where a patched release exists on the current major is flagged", () => {
    const benchCase = loadCase("semver-redos-6x-cve-2022-25883");
    const score = scoreCase(benchCase, ok, replayedWorkspace(benchCase));
    expect(score.failure_modes[0]!.detail).toMatch(/semver locked at 7\.\d+\.\d+; 6\.x has a fix/);
  });

  it("without a workspace there is nothing to judge", async () => {
    const benchCase = lodash();
    const score = await rubric.score(benchCase, ok, { workspacePath: null });
    expect(codes(score)).toEqual(["workspace_missing"]);
    expect(score.score).toBe(0);
  });

  it("a stream that could not be parsed is noted and the workspace still judged", () => {
    const benchCase = lodash();
    const score = scoreCase(benchCase, { trial_class: "format_drift" }, replayedWorkspace(benchCase));
    expect(codes(score)).toEqual(["agent_stream_unparsed"]);
    expect(score.passed).toBe(true);
  });

  it("reports a CLI error with the SUT's own message when it gives one", () => {
    const score = scoreCase(
      lodash(),
      { trial_class: "cli_error", error: "authentication_failed: Not logged in" },
      null,
    );
    expect(score.failure_modes).toEqual([
      { code: "agent_cli_error", severity: "block", detail: "authentication_failed: Not logged in" },
    ]);
    const classified = {
      trial_class: "cli_error",
      classification: {
        trial_class: "cli_error",
        cli_error_kind: "auth_failure",
        reason: "auth failure reported in the stream",
      },
    };
    expect(scoreCase(lodash(), classified, null).failure_modes[0]!.detail).toBe(
      "auth_failure: auth failure reported in the stream",
    );
    const unnamed = { trial_class: "cli_error", classification: { reason: "exit 41" } };
    expect(scoreCase(lodash(), unnamed, null).failure_modes[0]!.detail).toBe("exit 41");
    expect(scoreCase(lodash(), { trial_class: "cli_error" }, null).failure_modes[0]!.detail).toContain(
      "before working on the task",
    );
  });

  it("a malformed expectation is a bench defect and throws", () => {
    const benchCase = lodash();
    const fake = { ...benchCase, expected_path: freshWorkspace(benchCase) };
    writeFileSync(join(fake.expected_path, "remediation.json"), JSON.stringify({ package: "lodash" }));
    expect(() => scoreCase(fake, ok, fake.expected_path)).toThrow(
      /does not have the vuln-remediation.expected.v1 shape/,
    );
  });

  it("changedFiles sees additions, removals and edits", () => {
    const benchCase = lodash();
    const ws = freshWorkspace(benchCase);
    rmSync(join(ws, "advisory.json"));
    writeFileSync(join(ws, "NOTES.md"), "x");
    writeFileSync(join(ws, "src", "render-email.js"), "x");
    expect(changedFiles(benchCase.input_path, ws)).toEqual(["NOTES.md", "advisory.json", "src/render-email.js"]);
  });
});
