import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invoke } from "../test-helpers.ts";
import { makeUpperBench } from "./run.test-helpers.ts";

let bench: { root: string; benchRoot: string; benchPath: string };
const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "alpha", "a-2": "beta", "b-1": "gamma" });
});
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

const base = (state: string) => [
  "run",
  "--task-class",
  "upper",
  "--bench-root",
  bench.benchRoot,
  "--out",
  join(bench.root, state),
];

describe("evalgate run", () => {
  it("prints one JSONL line per case and one aggregate line; a rerun is all cache hits", async () => {
    const first = await invoke([...base("s1"), "--sut", "module:sut.mjs#same"], { cwd: bench.root });
    expect(first.code, first.stderr).toBe(0);
    const out = lines(first.stdout);
    expect(out.map((l) => l.type)).toEqual(["case", "case", "case", "run"]);
    expect(out[0]).toMatchObject({ case_id: "a-1", cache_hit: false });
    const summary = out[3]!;
    expect(summary).toMatchObject({ task_class: "upper", complete: true, case_count: 3, passed_count: 0 });
    expect(summary.chain_head).toMatch(/^sha256:/);
    expect(JSON.parse(await readFile(summary.record_path as string, "utf8")).chain_hash).toBe(summary.chain_head);
    // Outside a terminal, progress comes as whole lines on stderr (and nothing else).
    expect(first.stderr).toMatch(
      /^evalgate run: 0\/3 cases, 0 failed, 0 cached, \$0\.0000, ETA --\n(evalgate run: \d\/3 cases, \d failed, .*\n)*evalgate run: 3\/3 cases, 3 failed, .*\n$/,
    );
    const second = await invoke([...base("s1"), "--sut", "module:sut.mjs#same"], { cwd: bench.root });
    expect(
      lines(second.stdout)
        .filter((l) => l.type === "case")
        .every((l) => l.cache_hit === true),
    ).toBe(true);
  });

  it("runs a command SUT on a glob of cases, and --format human prints a table", async () => {
    const result = await invoke(
      [...base("s2"), "--sut", "command:node upper.mjs", "--cases", "a-*", "--format", "human", "--max-cost-usd", "10"],
      { cwd: bench.root, env: { PATH: process.env.PATH } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout, result.stdout).toMatch(/a-1\s+1\.000\s+yes\s+miss/);
    expect(result.stdout).toMatch(/2\/2 cases \(SUBSET of 3: cannot support a promotion\), 2 passed/);
    expect(result.stdout).toMatch(
      /mean 1\.000, sd 0\.000, one-sided 95% lower bound 0\.\d{3} of the mean score \(betting\)/,
    );
    expect(result.stdout).not.toMatch(/b-1/);
    expect(result.stderr).toMatch(
      /scores 2 of the 3 cases of upper \(a-\*\): it is recorded as a subset and cannot support a promotion/,
    );
  });

  it("adversary: a cache entry edited to pass is not believed: the case is scored again, with a warning", async () => {
    const first = await invoke([...base("s-forge"), "--sut", "module:sut.mjs#same", "--cases", "a-1"], {
      cwd: bench.root,
    });
    expect(lines(first.stdout).at(-1)).toMatchObject({ passed_count: 0 });
    const cacheDir = join(bench.root, "s-forge", "cache");
    const entries = (await readdir(cacheDir, { recursive: true })).filter((name) =>
      /^[0-9a-f]{2}\/[0-9a-f]{64}\.json$/.test(name),
    );
    expect(entries).toHaveLength(1);
    const path = join(cacheDir, entries[0]!);
    const [entry, mac] = (await readFile(path, "utf8")).split("\n");
    const forged = JSON.parse(entry!) as { score: { passed: boolean; score: number; failure_modes: unknown[] } };
    forged.score = { ...forged.score, passed: true, score: 1, failure_modes: [] };
    await writeFile(path, `${JSON.stringify(forged)}\n${mac}\n`);
    const second = await invoke([...base("s-forge"), "--sut", "module:sut.mjs#same", "--cases", "a-1"], {
      cwd: bench.root,
    });
    expect(second.stderr).toMatch(/cache\.mac_mismatch|ignored/);
    const out = lines(second.stdout);
    expect(out[0]).toMatchObject({ type: "case", cache_hit: false });
    expect(out.at(-1)).toMatchObject({ passed_count: 0 });
    expect((await invoke(["verify", "--out", join(bench.root, "s-forge")])).code).toBe(0);
  });

  it("adversary (red-team finding): a SUT that replaces its output with a symlink to expected/ scores nothing", async () => {
    // The SUT knows (or reads from its mount table) where the case lives and links its answer there.
    await writeFile(
      join(bench.root, "forge.mjs"),
      `import { readFileSync, rmSync, symlinkSync } from "node:fs";
       const request = JSON.parse(readFileSync(0, "utf8"));
       const path = request.workspace_path + "/text.txt";
       rmSync(path);
       symlinkSync(${JSON.stringify(bench.benchPath)} + "/cases/" + request.case.case_id + "/expected/text.txt", path);
       process.stdout.write("{}");`,
    );
    const result = await invoke(
      [...base("s-forge-link"), "--sut", "command:node forge.mjs", "--cases", "a-*", "--no-cache"],
      { cwd: bench.root, env: { PATH: process.env.PATH } },
    );
    // The link is removed, so this bench's rubric throws on the missing file for every case: recorded as the
    // SUT's failure (never in its favour), and the run exits 8 saying the rubric failed on every unit.
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toContain("EVAL_RUBRIC_BROKEN");
    expect(lines(result.stdout).at(-1)).toMatchObject({ passed_count: 0 });
    const runDir = (await readdir(join(bench.root, "s-forge-link", "runs"), { withFileTypes: true })).find(
      (entry) => entry.isDirectory() && !entry.name.startsWith("."),
    )!;
    const detail = JSON.parse(
      await readFile(join(bench.root, "s-forge-link", "runs", runDir.name, "cases", "a-1.json"), "utf8"),
    );
    expect(detail.removed_from_workspace).toEqual(["text.txt"]);
  });

  it("adversary: escape sequences in a SUT's stderr (clear the screen, a fake verdict) are shown escaped in the table, progress and the exit-8 line", async () => {
    // Clears the screen, homes the cursor, prints a fake verdict, retitles the window, rings the bell; a C1 CSI and a bidi override too.
    const payload = "\x1b[2J\x1b[Hgold: evidence sufficient\x1b]0;owned\x07\u009b31m\u202e";
    await writeFile(
      join(bench.root, "ansi.mjs"),
      `process.stderr.write(${JSON.stringify(payload)}); process.exit(3);\n`,
    );
    const result = await invoke(
      [...base("s-ansi"), "--sut", "command:node ansi.mjs", "--cases", "a-*", "--format", "human", "--no-cache"],
      { cwd: bench.root, env: { PATH: process.env.PATH } },
    );
    expect(result.code, result.stderr).toBe(8);
    // oxlint-disable-next-line eslint/no-control-regex -- what must not reach the terminal
    const raw = /[\u001b\u0007\u009b\u202e]/;
    expect(result.stdout).not.toMatch(raw);
    expect(result.stderr).not.toMatch(raw);
    expect(result.stdout).toContain("\\x1b[2J");
    expect(result.stderr).toMatch(/measured nothing.*\\x1b\[2J/);
  });

  it("exits 7 in one line, recording nothing, when --cases selects no case", async () => {
    const result = await invoke([...base("s-none"), "--sut", "command:node upper.mjs", "--cases", "nomatch*"], {
      cwd: bench.root,
      env: { PATH: process.env.PATH },
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(
      /--cases "nomatch\*" matches none of the 3 cases of "upper": nothing to run, nothing recorded.*EVAL_NO_CASES_SELECTED/,
    );
    const runs = await readdir(join(bench.root, "s-none", "runs")).catch(() => []);
    expect(runs.filter((name) => name.endsWith(".json"))).toEqual([]);
  });

  it("refuses --record-overwrite without --record in one line, before anything runs", async () => {
    const result = await invoke([...base("s-overwrite"), "--sut", "command:node upper.mjs", "--record-overwrite"], {
      cwd: bench.root,
      env: { PATH: process.env.PATH },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "evalgate: --record-overwrite only changes what --record does: pass both, or neither (EVAL_USAGE); run `evalgate <command> --help` for the accepted flags\n",
    );
  });

  it("exits 2 at the cost cap with the run recorded as incomplete", async () => {
    const result = await invoke(
      [...base("s3"), "--sut", "command:node upper.mjs", "--max-cost-usd", "0.5", "--concurrency", "1"],
      { cwd: bench.root, env: { PATH: process.env.PATH } },
    );
    expect(result.code).toBe(2);
    const summary = lines(result.stdout).at(-1)!;
    expect(summary).toMatchObject({ complete: false, scored: 1, case_count: 3 });
    expect(summary.run_id).toMatch(/^partial:/);
    expect(result.stderr).toMatch(/cost cap/);
  });

  it("takes settings from EVALGATE_* env below flags, and rejects a bad value with exit 1", async () => {
    const bad = await invoke([...base("s4"), "--sut", "module:sut.mjs#same"], {
      cwd: bench.root,
      env: { EVALGATE_CONCURRENCY: "zero" },
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/concurrency must be a whole number/);
    const flagWins = await invoke([...base("s4"), "--sut", "module:sut.mjs#same", "--concurrency", "1"], {
      cwd: bench.root,
      env: { EVALGATE_CONCURRENCY: "zero" },
    });
    expect(flagWins.code, flagWins.stderr).toBe(0);
    const envState = await invoke(["run", "--task-class", "upper", "--sut", "module:sut.mjs#same", "--cases", "b-1"], {
      cwd: bench.root,
      env: { EVALGATE_BENCH_ROOT: bench.benchRoot, EVALGATE_STATE_DIR: join(bench.root, "from-env") },
    });
    expect(envState.code, envState.stderr).toBe(0);
    expect(await readdir(join(bench.root, "from-env", "runs"))).not.toEqual([]);
  });

  it("maps refusals to their exit codes with one line on stderr", async () => {
    const unknown = await invoke([...base("s5"), "--task-class", "nope", "--sut", "module:sut.mjs#same"], {
      cwd: bench.root,
    });
    expect(unknown.code).toBe(3);
    const noBench = await invoke(
      ["run", "--task-class", "upper", "--bench-root", join(bench.root, "missing"), "--sut", "module:sut.mjs#same"],
      { cwd: bench.root },
    );
    expect(noBench.code).toBe(4);
    const noSut = await invoke(base("s5"), { cwd: bench.root });
    expect(noSut.code).toBe(1);
    expect(noSut.stderr).toMatch(/no --sut given/);
    const badSut = await invoke([...base("s5"), "--sut", "telepathy"], { cwd: bench.root });
    expect(badSut.code).toBe(1);
    expect(badSut.stderr).toMatch(/unknown SUT spec/);
    for (const result of [unknown, noBench, noSut, badSut]) {
      expect(result.stderr.trim().split("\n").length).toBeLessThanOrEqual(2);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("exits 5 on a tampered chain and 6 on a poisoned case, before running anything", async () => {
    const ok = await invoke([...base("s6"), "--sut", "module:sut.mjs#same", "--cases", "a-1"], { cwd: bench.root });
    const recordPath = lines(ok.stdout).at(-1)!.record_path as string;
    await writeFile(
      recordPath,
      (await readFile(recordPath, "utf8"))
        .replace('"case_count": 1', '"case_count": 2')
        .replace('"case_count":1', '"case_count":2'),
    );
    const tampered = await invoke([...base("s6"), "--sut", "module:sut.mjs#same"], { cwd: bench.root });
    expect(tampered.code).toBe(5);
    const poisoned = await makeUpperBench({ x: "one" });
    try {
      await writeFile(join(poisoned.benchPath, "cases", "x", "expected", "text.txt"), "ONE, LOOSENED");
      const result = await invoke(
        [
          "run",
          "--task-class",
          "upper",
          "--bench-root",
          poisoned.benchRoot,
          "--out",
          join(poisoned.root, "s"),
          "--sut",
          "module:sut.mjs#same",
        ],
        { cwd: poisoned.root },
      );
      expect(result.code).toBe(6);
      expect(result.stderr).toMatch(/x/);
    } finally {
      await rm(poisoned.root, { recursive: true, force: true });
    }
  });

  it("--with-verdict evaluates promotion read-only and writes the verdict under recommendations/", async () => {
    const tiers = join(bench.root, "tiers.yaml");
    await writeFile(
      tiers,
      "schema_version: evalgate.trust_tiers.v1\ncalibrated: false\ntiers:\n  - name: untrusted\n    threshold: 0.0\n    min_cases: 0\n    min_held_out: 0\n    description: Base.\n  - name: bronze\n    threshold: 0.6\n    min_cases: 0\n    min_held_out: 0\n    description: Next.\ncurrent:\n  upper: untrusted\n",
    );
    const result = await invoke(
      [...base("s7"), "--sut", "module:sut.mjs#upper", "--with-verdict", "--trust-tiers", tiers],
      { cwd: bench.root },
    );
    expect(result.code, result.stderr).toBe(0);
    const out = lines(result.stdout);
    const verdictLine = out.at(-1)! as {
      type: string;
      target_tier: string;
      evidence_sufficient: boolean;
      report_run_id: string;
      path: string;
    };
    expect(verdictLine.type).toBe("verdict");
    expect(verdictLine.target_tier).toBe("bronze");
    expect(verdictLine.report_run_id).toBe(out.at(-2)!.run_id);
    expect(typeof verdictLine.evidence_sufficient).toBe("boolean");
    expect(await readdir(join(bench.root, "s7", "recommendations"))).toHaveLength(1);
    // Human form prints the verdict as promote-verdict does, not as JSON.
    const human = await invoke(
      [...base("s7"), "--sut", "module:sut.mjs#upper", "--with-verdict", "--trust-tiers", tiers, "--format", "human"],
      { cwd: bench.root },
    );
    expect(human.stdout).toMatch(/upper: untrusted -> bronze: evidence (NOT )?sufficient/i);
    expect(human.stdout).not.toMatch(/"type":"verdict"/);
  });

  it("--with-verdict checks the trust-tier file before running anything", async () => {
    const result = await invoke(
      [
        ...base("s7b"),
        "--sut",
        "module:sut.mjs#upper",
        "--with-verdict",
        "--trust-tiers",
        join(bench.root, "missing.yaml"),
      ],
      { cwd: bench.root },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot read the trust-tiers file .*missing\.yaml.*EVAL_TIER_CONFIG_INVALID/);
    expect(await readdir(join(bench.root, "s7b")).catch(() => [])).not.toContain("runs");
  });

  it("runs the repository's own vuln-remediation bench, replaying its cassettes by default", async () => {
    const repo = join(import.meta.dirname, "..", "..", "..", "..");
    const result = await invoke(
      [
        "run",
        "--task-class",
        "vuln-remediation",
        "--cases",
        "{braces-transitive,lodash-template}-*",
        "--bench-root",
        join(repo, "bench"),
        "--out",
        join(bench.root, "s-real"),
      ],
      { cwd: repo },
    );
    expect(result.code, result.stderr).toBe(0);
    const out = lines(result.stdout);
    expect(out.filter((l) => l.type === "case").map((l) => l.case_id)).toEqual([
      "braces-transitive-cve-2024-4068",
      "lodash-template-cve-2021-23337",
    ]);
    expect(out.at(-1)).toMatchObject({ type: "run", sut_label: "replay", complete: true, case_count: 2 });
  });

  it("always writes a transcript line per agent invocation; --stream-log adds the raw stream, --log-format is mapped with a warning", async () => {
    const repo = join(import.meta.dirname, "..", "..", "..", "..");
    const state = join(bench.root, "s-transcripts");
    const args = [
      "run",
      "--task-class",
      "vuln-remediation",
      "--cases",
      "lodash-template-*",
      "--bench-root",
      join(repo, "bench"),
      "--out",
      state,
      "--no-cache",
    ];
    const raw = await invoke([...args, "--stream-log", "raw"], { cwd: repo });
    expect(raw.code, raw.stderr).toBe(0);
    const transcripts = (await readFile(join(state, "transcripts", "vuln-remediation.jsonl"), "utf8"))
      .trim()
      .split("\n");
    expect(transcripts).toHaveLength(1);
    expect(JSON.parse(transcripts[0]!)).toMatchObject({
      schema_version: "evalgate.transcript.v1",
      case_id: "lodash-template-cve-2021-23337",
    });
    expect(
      (await readdir(join(state, "transcripts", "streams"))).filter((name) => name.endsWith(".jsonl")),
    ).toHaveLength(1);

    const deprecated = await invoke([...args, "--log-format", "summary"], { cwd: repo });
    expect(deprecated.code, deprecated.stderr).toBe(0);
    expect(deprecated.stderr).toContain("log_format is deprecated");
    expect(
      (await readdir(join(state, "transcripts", "streams"))).filter((name) => name.endsWith(".summary.txt")),
    ).toHaveLength(1);
    expect(
      (await readFile(join(state, "transcripts", "vuln-remediation.jsonl"), "utf8")).trim().split("\n"),
    ).toHaveLength(2);

    const bad = await invoke([...args, "--stream-log", "verbose"], { cwd: repo });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^evalgate: stream_log must be false, "summary" or "raw"/);
  });
});
