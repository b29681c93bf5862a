import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendRunRecord, getHostFingerprint, readChainHead } from "@eval/audit-chain";
import { invoke } from "../test-helpers.ts";
import { recordRuns } from "./audit.test-helpers.ts";

const REPO = join(import.meta.dirname, "..", "..", "..", "..");
const BENCH = join(REPO, "bench");
const TIERS = join(REPO, "docs", "trust-tiers.yaml");
let dir: string;
let stateDir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cli-verdict-"));
  stateDir = join(dir, "state");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const base = () => ["promote-verdict", "--out", stateDir, "--bench-root", BENCH, "--trust-tiers", TIERS];
const line = (text: string) => JSON.parse(text.trim().split("\n").at(-1)!) as Record<string, unknown>;

describe("evalgate promote-verdict", () => {
  it("evaluates the newest complete full run against the next tier, naming newer runs it passed over (exit 0)", async () => {
    // vuln-remediation registers bronze: 10; docs/trust-tiers.yaml has it at untrusted, bronze threshold 0.6.
    // 12 cases scoring 0.9 bound at 0.684 (betting). Every run is of one SUT: their attempts are pooled (a
    // passing case scores the same in each fixture run, so it is one attempt, as a cache hit is).
    await recordRuns(stateDir, [
      { passed: 12 },
      { passed: 12 },
      { passed: 1, complete: false },
      { cases: 10, subsetOf: 15 },
    ]);
    const result = await invoke([...base(), "--task-class", "vuln-remediation"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const verdict = line(result.stdout);
    expect(verdict).toMatchObject({
      type: "verdict",
      task_class: "vuln-remediation",
      current_tier: "untrusted",
      target_tier: "bronze",
      evidence_sufficient: true,
      reasons: ["all conditions met"],
      report_run_id: "run-1",
      report_scope: "full",
      sut_label: "replay",
      passed_over: [
        { run_id: "run-3", reason: 'subset (10 of 15 cases, filter "*-case")' },
        { run_id: "partial:run-2", reason: "incomplete (12 of 12 cases)" },
      ],
      min_cases_at_target: 10,
      thresholds_calibrated: false,
      requires_human_approval: true,
      evidence_pool: {
        runs_pooled: ["run-0", "run-1", "partial:run-2", "run-3"],
        runs_excluded: [],
        attempts_per_case: 1,
        distinct_suts_on_held_out: 1,
      },
    });
    const files = await readdir(join(stateDir, "recommendations"));
    expect(files).toHaveLength(1);
    const { type: _type, path, ...stored } = verdict;
    expect(path).toBe(join(stateDir, "recommendations", files[0]!));
    expect(JSON.parse(await readFile(path as string, "utf8"))).toEqual(stored);
    // The tier file is untouched: promotion is a human's reviewed edit.
    expect(await readFile(TIERS, "utf8")).toContain("vuln-remediation: untrusted");
  });

  it("lists the failing conditions for a higher target, in human form", async () => {
    await recordRuns(stateDir, [{ passed: 11, heldOut: 3 }]);
    const result = await invoke([
      ...base(),
      "--task-class",
      "vuln-remediation",
      "--target-tier",
      "silver",
      "--format",
      "human",
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("vuln-remediation: untrusted -> silver: evidence NOT sufficient");
    expect(result.stdout).toContain("  - lower_bound_95 0.575 < 0.8 required for silver (betting)");
    expect(result.stdout).toContain("  - cases 12 < 15 required for silver");
    expect(result.stdout).toMatch(/one-sided 95% lower bound 0\.575\d* of the mean score \(betting; threshold 0\.8\)/);
    expect(result.stdout).toMatch(/sut replay \(blake3:f{64}\)/);
    expect(result.stdout).toContain("  - passed_count 11 < 14 min_cases_for_promotion for silver");
    expect(result.stdout).toContain("  - held-out cases 3 < 5 required for silver");
    expect(result.stdout).toMatch(/thresholds NOT calibrated/);
    expect(result.stdout).toContain(
      "pooled 1 run(s), 1 attempt(s) per case (12 distinct attempts recorded, 0 beyond the fewest any case has, 0 harness faults left out); 0 run(s) excluded",
    );
    expect(result.stdout).toMatch(
      /run run-0 alone: lower bound 0\.575\d*, mean 0\.8333, passed 11 \(shown only: the verdict is on the pooled attempts\)/,
    );
    expect(result.stdout).toContain(
      "1 distinct SUT(s) have run on this task class's held-out cases under its current rubric",
    );
    expect(result.stdout).toMatch(/a person promotes by a reviewed change to .*trust-tiers\.yaml/);
  });

  it("--run judges the named run; a subset run is never sufficient and the verdict names what it left out", async () => {
    await recordRuns(stateDir, [{}, { passed: 10, cases: 10, heldOut: 5, subsetOf: 15 }, { passed: 2 }]);
    const named = await invoke([...base(), "--task-class", "vuln-remediation", "--run", "run-0"]);
    expect(line(named.stdout)).toMatchObject({ report_run_id: "run-0", evidence_sufficient: true, passed_over: [] });
    const subset = await invoke([...base(), "--task-class", "vuln-remediation", "--run", "run-1", "--format", "human"]);
    expect(subset.code).toBe(0);
    expect(subset.stdout).toContain("evidence NOT sufficient");
    expect(subset.stdout).toContain(
      '  - run run-1 scored a subset: 10 of 15 cases (filter "*-case"), 5 left out; a promotion needs a run over the whole task class',
    );
    const missing = await invoke([...base(), "--task-class", "vuln-remediation", "--run", "run-9"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^evalgate: no run run-9 of vuln-remediation in .*EVAL_REPORT_NOT_FOUND/);
  });

  it("reads a run recorded before report v2, and never finds it sufficient", async () => {
    await recordRuns(stateDir, [{ lowerBound: 0.99, legacy: true }]);
    expect((await invoke(["verify", "--out", stateDir])).code).toBe(0);
    const verdict = line((await invoke([...base(), "--task-class", "vuln-remediation"])).stdout);
    expect(verdict).toMatchObject({ evidence_sufficient: false, report_scope: "unknown", bound_quantity: null });
    expect(verdict.reasons).toEqual([
      expect.stringMatching(/^run run-0 was recorded as evalgate\.bench_run_report\.v1, .* cannot support a promotion/),
    ]);
  });

  it("--report names a run by its record file: the verdict reads the chained record, never the file", async () => {
    const paths = await recordRuns(stateDir, [{}]);
    const given = await invoke([...base(), "--task-class", "vuln-remediation", "--report", paths[0]!]);
    expect(line(given.stdout)).toMatchObject({ evidence_sufficient: true, report_run_id: "run-0" });
    // A copy with a forged bound is only a pointer to run-0: the chained bound is what counts.
    const forged = join(dir, "forged.json");
    await writeFile(
      forged,
      JSON.stringify({ ...JSON.parse(await readFile(paths[0]!, "utf8")).report, lower_bound_95: 0.1 }),
    );
    expect(
      line((await invoke([...base(), "--task-class", "vuln-remediation", "--report", forged])).stdout),
    ).toMatchObject({ lower_bound_95: JSON.parse(await readFile(paths[0]!, "utf8")).report.lower_bound_95 });
    // In a state directory whose chain does not hold it, there is no such run.
    const outside = join(dir, "copied.json");
    await copyFile(paths[0]!, outside);
    const other = await invoke([
      "promote-verdict",
      "--out",
      join(dir, "other-state"),
      "--bench-root",
      BENCH,
      "--trust-tiers",
      TIERS,
      "--task-class",
      "vuln-remediation",
      "--report",
      outside,
    ]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/no run run-0 of vuln-remediation .*EVAL_REPORT_NOT_FOUND/);
  });

  it("writes an insufficient verdict and exits 5 when the chain is tampered", async () => {
    const paths = await recordRuns(stateDir, [{}, {}]);
    await writeFile(
      paths[0]!,
      (await readFile(paths[0]!, "utf8")).replace(/"mean_score":[0-9.]+/, '"mean_score":0.95'),
    );
    const result = await invoke([...base(), "--task-class", "vuln-remediation"]);
    expect(result.code).toBe(5);
    expect(line(result.stdout)).toMatchObject({ evidence_sufficient: false });
    expect(result.stderr).toMatch(/EVAL_CHAIN_TAMPERED/);
  });

  it("recomputes what it judges: a failing run's record re-appended (the project's own append) with forged figures is tampering (exit 5)", async () => {
    const paths = await recordRuns(stateDir, [{ passed: 2 }]);
    const failing = JSON.parse(await readFile(paths[0]!, "utf8")).report;
    const runsDir = join(stateDir, "runs");
    const head = await readChainHead(runsDir);
    const forged = {
      ...failing,
      run_id: "forged",
      lower_bound_95: 0.95,
      mean_score: 0.95,
      passed_count: 12,
      prev_hash: head.head,
      chain_head: null,
    };
    await appendRunRecord(forged, { runsDir, hostFingerprint: await getHostFingerprint(stateDir) });
    expect((await invoke(["verify", "--out", stateDir])).code).toBe(0); // the chain itself is intact
    const result = await invoke([...base(), "--task-class", "vuln-remediation"]);
    expect(result.code).toBe(5);
    const verdict = line(result.stdout);
    expect(verdict).toMatchObject({ evidence_sufficient: false, report_run_id: "forged", passed_count: 2 });
    expect(verdict.lower_bound_95).toBeLessThan(0.2);
    expect(verdict.reasons).toContainEqual(
      expect.stringMatching(
        /^tampered record: run forged: .*passed_count recorded 12, per-case data gives 2; mean_score recorded 0\.95, .*lower_bound_95 recorded 0\.95/,
      ),
    );
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/EVAL_RECORD_TAMPERED/);
  });

  it("--anchor refuses a truncated chain: the newest failing run deleted would otherwise leave the older passing one sufficient", async () => {
    // run-1 fails every case: pooled with run-0, every case has 2 attempts (0.9 and 0.1), too weak for bronze.
    await recordRuns(stateDir, [{ passed: 12 }, { passed: 0 }]);
    const anchorFile = join(dir, "anchor.json");
    expect((await invoke(["anchor", "--out", stateDir, "--write", anchorFile])).code).toBe(0);
    const before = await invoke([...base(), "--task-class", "vuln-remediation", "--anchor", anchorFile]);
    expect(before.code).toBe(0);
    expect(line(before.stdout)).toMatchObject({ evidence_sufficient: false, report_run_id: "run-1" });
    const records = (await readdir(join(stateDir, "runs"))).filter((name) => name.endsWith(".json")).sort();
    await rm(join(stateDir, "runs", records[1]!));
    await writeFile(
      join(stateDir, "runs", ".index", "head.json"),
      `${JSON.stringify({ file: records[0], records: 1 })}\n`,
    );
    // The chain checkpoint remembers 2 verified records and would name the deletion: whoever holds the state
    // directory removes it too (a lost checkpoint costs a full walk, which the truncated chain passes).
    await rm(join(stateDir, "chain.checkpoint"), { force: true });
    const unanchored = await invoke([...base(), "--task-class", "vuln-remediation"]);
    expect(line(unanchored.stdout)).toMatchObject({ evidence_sufficient: true, report_run_id: "run-0" }); // the attack, without an anchor
    const anchored = await invoke([...base(), "--task-class", "vuln-remediation", "--anchor", anchorFile]);
    expect(anchored.code).toBe(5);
    expect(line(anchored.stdout)).toMatchObject({ evidence_sufficient: false });
    expect(line(anchored.stdout).reasons).toContain("the audit chain does not verify (run `evalgate verify`)");
    expect(anchored.stderr).toMatch(/newest records were deleted.*EVAL_CHAIN_TAMPERED/);
  });

  it.each([
    [
      "no run recorded",
      [],
      ["--task-class", "vuln-remediation"],
      1,
      /no complete run of the whole task class of vuln-remediation .*EVAL_REPORT_NOT_FOUND/,
    ],
    [
      "only subset runs recorded",
      [{ cases: 10, subsetOf: 15 }],
      ["--task-class", "vuln-remediation"],
      1,
      /no complete run of the whole task class of vuln-remediation .*\(1 subset or incomplete runs passed over\).*EVAL_REPORT_NOT_FOUND/,
    ],
    [
      "both --run and --report",
      [{}],
      ["--task-class", "vuln-remediation", "--run", "run-0", "--report", "x.json"],
      1,
      /pass --run or --report, not both.*EVAL_USAGE/,
    ],
    ["an unknown task class", [{}], ["--task-class", "no-such-class"], 3, /EVAL_TASK_CLASS_NOT_FOUND/],
    [
      "an unknown target tier",
      [{}],
      ["--task-class", "vuln-remediation", "--target-tier", "platinum"],
      1,
      /unknown target tier "platinum".*EVAL_USAGE/,
    ],
    [
      "a missing report file",
      [{}],
      ["--task-class", "vuln-remediation", "--report", "/nonexistent/report.json"],
      1,
      /no report at .*EVAL_REPORT_NOT_FOUND/,
    ],
  ])("fails in one line on %s", async (_label, shapes, argv, code, message) => {
    await recordRuns(stateDir, shapes);
    const result = await invoke([...base(), ...argv]);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("rejects an invalid report file and an invalid tier file, naming them", async () => {
    await recordRuns(stateDir, [{}]);
    const junk = join(dir, "junk.json");
    await writeFile(junk, "{ not json");
    const notJson = await invoke([...base(), "--task-class", "vuln-remediation", "--report", junk]);
    expect(notJson.stderr).toMatch(/junk\.json is not a JSON report.*EVAL_REPORT_INVALID/);
    await writeFile(junk, JSON.stringify({ schema_version: "evalgate.bench_run_report.v2" }));
    expect((await invoke([...base(), "--task-class", "vuln-remediation", "--report", junk])).stderr).toMatch(
      /junk\.json names no run_id.*EVAL_REPORT_INVALID/,
    );
    const tiers = join(dir, "tiers.yaml");
    await writeFile(
      tiers,
      (await readFile(TIERS, "utf8")).replace("vuln-remediation: untrusted", "vuln-remediation: diamond"),
    );
    const badTiers = await invoke([
      "promote-verdict",
      "--out",
      stateDir,
      "--bench-root",
      BENCH,
      "--trust-tiers",
      tiers,
      "--task-class",
      "vuln-remediation",
    ]);
    expect(badTiers.code).toBe(1);
    expect(badTiers.stderr).toMatch(
      /tiers\.yaml: current\.vuln-remediation: unknown tier "diamond".*EVAL_TIER_CONFIG_INVALID/,
    );
    expect(await readdir(stateDir)).not.toContain("recommendations");
  });
});
