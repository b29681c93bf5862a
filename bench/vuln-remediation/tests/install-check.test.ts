// The install check: a lockfile must be one npm would accept from the registry and must install a tree
// that runs. Attack-first: the hand-edited-lockfile SUT (examples/attack-suts/lockfile-forger.ts, run as
// a real process on a copy of each case) passed every positive case before this check existed.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readExpectation, scoreCase, scoreInstalled } from "../rubric.ts";
import { RegistrySnapshot, SNAPSHOT_DIR, SNAPSHOT_SCHEMA, snapshotDigest, sriMatches } from "../registry-snapshot.ts";
import { BENCH_DIR, caseIds, cleanupWorkspaces, freshWorkspace, loadCase } from "./case-fixtures.ts";

afterAll(cleanupWorkspaces);
const ok = { trial_class: "parse_success" };
const FORGER = join(BENCH_DIR, "..", "..", "examples", "attack-suts", "lockfile-forger.ts");
const codes = (score: { failure_modes: ReadonlyArray<{ code: string }> }) =>
  score.failure_modes.map((f) => f.code).sort();
const detail = (score: { failure_modes: ReadonlyArray<{ code: string; detail?: string | null }> }, code: string) =>
  score.failure_modes.find((f) => f.code === code)?.detail ?? "";
const positive = caseIds().filter((id) => loadCase(id).disposition === "positive");

function editJson(dir: string, file: string, edit: (value: Record<string, any>) => void): void {
  const value = JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, any>;
  edit(value);
  writeFileSync(join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
}

/** input/ with one of the case's controls (reference fix or near miss) laid over it. */
function controlWorkspace(caseId: string, control: string): string {
  const benchCase = loadCase(caseId);
  const ws = freshWorkspace(benchCase);
  cpSync(join(benchCase.case_path, "controls", control), ws, { recursive: true });
  return ws;
}

describe("the hand-edited-lockfile SUT", () => {
  // bump (the old integrity kept) on every positive case; the other two on a direct, a transitive and an
  // override case (one real process each: CI time).
  const sample = [
    "lodash-template-cve-2021-23337",
    "braces-transitive-cve-2024-4068",
    "tough-cookie-via-request-cve-2023-26136",
  ];
  it.each([
    ["bump", positive],
    ["drop-integrity", sample],
    ["invent-resolved", sample],
  ] as const)(
    "%s: fails the cases it edits, naming the package",
    async (strategy, caseIds) => {
      for (const caseId of caseIds) {
        const benchCase = loadCase(caseId);
        const ws = freshWorkspace(benchCase);
        const run = spawnSync(process.execPath, [FORGER, strategy], {
          cwd: ws,
          input: "{}",
          encoding: "utf8",
          timeout: 20_000,
        });
        expect(run.status, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout).entries_changed).toBeGreaterThan(0);
        const score = await scoreInstalled(benchCase, ok, ws);
        expect(score.passed, caseId).toBe(false);
        expect(codes(score), caseId).toContain("integrity_mismatch");
        expect(detail(score, "integrity_mismatch"), caseId).toContain(
          `node_modules/${readExpectation(benchCase.expected_path).package}@`,
        );
        expect(score.score, caseId).toBeLessThanOrEqual(0.5);
      }
    },
    180_000,
  ); // one real process per case: generous on a loaded machine

  it("node-fetch 2.x without whatwg-url is install_broken, naming both (the issue's 1.000 pass)", async () => {
    const ws = freshWorkspace(loadCase("node-fetch-major-cve-2022-0235"));
    spawnSync(process.execPath, [FORGER, "bump"], { cwd: ws, input: "{}", encoding: "utf8" });
    editJson(
      ws,
      "package-lock.json",
      (l) =>
        (l.packages["node_modules/node-fetch"].integrity =
          "sha512-ZjMPFEfVx5j+y2yF35Kzx5sF7kDzxuDj6ziH4FFbOp87zKDZNx8yExJIb05OGF4Nlt9IHFIMBkRl41VdvcNdbQ=="),
    );
    const score = await scoreInstalled(loadCase("node-fetch-major-cve-2022-0235"), ok, ws);
    expect(codes(score)).toEqual(["install_broken"]);
    expect(detail(score, "install_broken")).toBe(
      "node_modules/node-fetch@2.6.7 needs whatwg-url@^5.0.0 (its published manifest), which the tree does not have",
    );
  });
});

describe("registry facts", () => {
  const lodash = () => loadCase("lodash-template-cve-2021-23337");

  it("a version the registry never published is unknown_version", () => {
    const ws = controlWorkspace("lodash-template-cve-2021-23337", "reference");
    editJson(ws, "package-lock.json", (l) => (l.packages["node_modules/lodash"].version = "4.17.99"));
    editJson(ws, "package.json", (p) => (p.dependencies.lodash = "^4.17.99"));
    editJson(ws, "package-lock.json", (l) => (l.packages[""].dependencies.lodash = "^4.17.99"));
    const score = scoreCase(lodash(), ok, ws);
    expect(codes(score)).toEqual(["unknown_version"]);
    expect(detail(score, "unknown_version")).toBe("node_modules/lodash@4.17.99: the registry has no lodash@4.17.99");
  });

  it("a package the registry does not have, or a name that is no package name, is unknown_version", () => {
    const ws = controlWorkspace("lodash-template-cve-2021-23337", "reference");
    editJson(ws, "package-lock.json", (l) => {
      l.packages["node_modules/lodash-fixed-fork"] = { version: "1.0.0", integrity: "sha512-AAAA" };
      l.packages["node_modules/lodash/node_modules/x"] = { name: "../../../etc", version: "1.0.0" };
    });
    const found = detail(scoreCase(lodash(), ok, ws), "unknown_version");
    expect(found).toContain("node_modules/lodash-fixed-fork@1.0.0: the registry has no package lodash-fixed-fork");
    expect(found).toContain('"../../../etc" is not an npm package name');
  });

  it("a lockfile key that is not a node_modules path is refused, even for a real package with its real integrity", async () => {
    const ws = controlWorkspace("lodash-template-cve-2021-23337", "reference");
    editJson(
      ws,
      "package-lock.json",
      (l) => (l.packages["node_modules/../../../escape"] = { ...l.packages["node_modules/lodash"], name: "lodash" }),
    );
    const score = await scoreInstalled(lodash(), ok, ws);
    expect(codes(score)).toEqual(["unknown_version"]);
    expect(detail(score, "unknown_version")).toBe(
      '"node_modules/../../../escape" is not a node_modules path npm writes',
    );
  });

  it("a copy claimed as bundled by a parent that bundles nothing still needs the registry's integrity", () => {
    const ws = controlWorkspace("lodash-template-cve-2021-23337", "dropped-integrity");
    editJson(ws, "package-lock.json", (l) => (l.packages["node_modules/lodash"].inBundle = true));
    expect(codes(scoreCase(lodash(), ok, ws))).toEqual(["integrity_mismatch"]);
  });

  it("judges each locked package by its published dependencies, not the lockfile's claim", () => {
    const ws = controlWorkspace("node-fetch-major-cve-2022-0235", "reference");
    // The lockfile claims node-fetch needs nothing; the registry says whatwg-url@^5.0.0.
    editJson(ws, "package-lock.json", (l) => {
      delete l.packages["node_modules/node-fetch"].dependencies;
      delete l.packages["node_modules/whatwg-url"];
    });
    const score = scoreCase(loadCase("node-fetch-major-cve-2022-0235"), ok, ws);
    expect(codes(score)).toEqual(["install_broken"]);
    expect(detail(score, "install_broken")).toContain(
      "needs whatwg-url@^5.0.0 (its published manifest), which the tree does not have",
    );
  });
});

describe("install and smoke check", () => {
  it("a needless major bump to an ESM-only node-fetch installs but does not run: smoke_failed names it", async () => {
    const score = await scoreInstalled(
      loadCase("node-fetch-major-cve-2022-0235"),
      ok,
      controlWorkspace("node-fetch-major-cve-2022-0235", "needless-major-bump"),
    );
    expect(codes(score)).toEqual(["needless_major_bump", "smoke_failed"]);
    expect(detail(score, "smoke_failed")).toBe(
      "with node-fetch@3.3.2 installed: require('node-fetch') is not the fetch function",
    );
  });

  it("a snapshot tarball that does not match its integrity is install_broken, and nothing runs", async () => {
    const copy = mkdtempSync(join(tmpdir(), "vuln-snapshot-"));
    try {
      cpSync(SNAPSHOT_DIR, copy, { recursive: true });
      const lock = JSON.parse(
        readFileSync(
          join(loadCase("lodash-template-cve-2021-23337").case_path, "controls", "reference", "package-lock.json"),
          "utf8",
        ),
      );
      const version = lock.packages["node_modules/lodash"].version as string;
      const file = join(copy, "tarballs", `lodash-${version}.tgz`);
      const bytes = readFileSync(file);
      bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 0xff;
      writeFileSync(file, bytes);
      const score = await scoreInstalled(
        loadCase("lodash-template-cve-2021-23337"),
        ok,
        controlWorkspace("lodash-template-cve-2021-23337", "reference"),
        new RegistrySnapshot(copy),
      );
      expect(codes(score)).toEqual(["install_broken"]);
      expect(detail(score, "install_broken")).toBe(
        `lodash@${version}: the snapshot's tarball does not match its integrity`,
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("a smoke check that throws fails the case; one without tarballs is skipped, not failed", async () => {
    const benchCase = loadCase("lodash-template-cve-2021-23337");
    const expected = freshWorkspace(benchCase);
    cpSync(benchCase.expected_path, expected, { recursive: true });
    writeFileSync(
      join(expected, "smoke.cjs"),
      'module.exports = (load) => { load("lodash").template("<%= x %>")({}); };\n',
    );
    const broken = await scoreInstalled(
      { ...benchCase, expected_path: expected },
      ok,
      controlWorkspace(benchCase.case_id, "reference"),
    );
    expect(codes(broken)).toEqual(["smoke_failed"]);
    expect(detail(broken, "smoke_failed")).toMatch(/^with lodash@[\d.]+ installed: x is not defined$/);
    const empty = mkdtempSync(join(tmpdir(), "vuln-snapshot-"));
    try {
      cpSync(SNAPSHOT_DIR, empty, { recursive: true, filter: (path) => !path.includes("/tarballs/") });
      const skipped = await scoreInstalled(
        benchCase,
        ok,
        controlWorkspace(benchCase.case_id, "reference"),
        new RegistrySnapshot(empty),
      );
      expect(skipped.passed).toBe(true);
      expect(codes(skipped)).toEqual(["smoke_skipped"]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe("the registry snapshot", () => {
  it("matches snapshot.json file by file, and its digest", () => {
    const snapshot = JSON.parse(readFileSync(join(SNAPSHOT_DIR, "snapshot.json"), "utf8")) as {
      schema: string;
      digest: string;
      files: Record<string, string>;
    };
    expect(snapshot.schema).toBe(SNAPSHOT_SCHEMA);
    expect(snapshot.digest).toBe(snapshotDigest(snapshot.files));
    const onDisk = ["packuments", "tarballs"]
      .flatMap((dir) => readdirSync(join(SNAPSHOT_DIR, dir)).map((file) => `${dir}/${file}`))
      .sort();
    expect(Object.keys(snapshot.files).sort()).toEqual(onDisk);
    for (const [path, hash] of Object.entries(snapshot.files))
      expect(sriMatches(readFileSync(join(SNAPSHOT_DIR, path)), hash), path).toBe(true);
  });
});
