// Runs that looked fine but were not, and refusals that came too late or too slowly (issue 15).
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSupport } from "@eval/sandbox";
import { invoke } from "../test-helpers.ts";
import { makeUpperBench } from "./run.test-helpers.ts";

let bench: { root: string; benchRoot: string; benchPath: string };
const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const records = (state: string): string[] => {
  try {
    return readdirSync(join(state, "runs")).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
};

beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "alpha", "a-2": "beta" });
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
const env = { PATH: process.env.PATH };

describe("a run whose every case failed for a harness or SUT-infrastructure reason", () => {
  it("is recorded, exits 8 with one line saying why, and the human table shows each case's error", async () => {
    const result = await invoke(
      [
        ...base("s-broken"),
        "--sut",
        "command:node missing-sut.mjs",
        "--format",
        "human",
        "--concurrency",
        "1",
        "--quiet",
      ],
      { cwd: bench.root, env },
    );
    expect(result.code).toBe(8);
    expect(result.stdout).toMatch(/a-1\s+0\.000\s+no\s+miss\s+sut\.exception: exited 1: /);
    expect(result.stdout).toMatch(/a-2\s+0\.000\s+no\s+miss\s+sut\.exception: exited 1: /);
    const errorLines = result.stderr.trim().split("\n");
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toMatch(
      /^evalgate: run \S+ measured nothing: all 2 cases failed in the SUT or the harness, not on their merits \(sut\.exception; a-1: exited 1: .*\(EVAL_RUN_ALL_CASES_ERRORED\); the run is recorded/,
    );
    expect(records(join(bench.root, "s-broken"))).toHaveLength(1);
    expect((await invoke(["verify", "--out", join(bench.root, "s-broken")])).code).toBe(0);
  });

  it("exits 0 as before when the cases failed on their merits, however badly they scored", async () => {
    const result = await invoke([...base("s-ok"), "--sut", "module:sut.mjs#same"], { cwd: bench.root, env });
    expect(result.code, result.stderr).toBe(0);
    expect(lines(result.stdout).at(-1)).toMatchObject({ passed_count: 0, scored: 2 });
  });
});

describe("run --max-cost-usd", () => {
  it("0 starts no case: nothing is paid for, the run is recorded as incomplete, exit 2", async () => {
    const result = await invoke(
      [...base("s-cap0"), "--sut", "command:node upper.mjs", "--max-cost-usd", "0", "--concurrency", "1"],
      { cwd: bench.root, env },
    );
    expect(result.code).toBe(2);
    expect(lines(result.stdout)).toEqual([
      expect.objectContaining({ type: "run", complete: false, scored: 0, total_cost_usd: 0 }),
    ]);
  });
});

describe("run --with-verdict", () => {
  it("checks before running anything that the trust-tier file names the task class's current tier", async () => {
    const tiers = join(bench.root, "tiers-without-upper.yaml");
    const source = await readFile(
      join(import.meta.dirname, "..", "..", "..", "..", "docs", "trust-tiers.yaml"),
      "utf8",
    );
    writeFileSync(tiers, `${source.slice(0, source.indexOf("\ncurrent:"))}\ncurrent:\n  some-other-class: untrusted\n`);
    const result = await invoke(
      [...base("s-tiers"), "--sut", "module:sut.mjs#same", "--with-verdict", "--trust-tiers", tiers],
      { cwd: bench.root, env },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `evalgate: ${tiers} has no current tier for task class "upper" (EVAL_TIER_CONFIG_INVALID); add "upper: untrusted" under current: in ${tiers} (a reviewed change; docs/bench-authoring.md)\n`,
    );
    expect(records(join(bench.root, "s-tiers"))).toEqual([]);
  });
});

describe("an unusable state directory", () => {
  it("--out naming a file: its own code and hint, for run, verify, gc, cache gc and promote-verdict", async () => {
    const file = join(bench.root, "not-a-dir");
    writeFileSync(file, "x");
    for (const argv of [
      [...base("x"), "--out", file, "--sut", "module:sut.mjs#same"],
      ["verify", "--out", file],
      ["gc", "--out", file],
      ["cache", "gc", "--out", file],
      ["cache", "stats", "--out", file],
      ["promote-verdict", "--task-class", "upper", "--bench-root", bench.benchRoot, "--out", file],
    ]) {
      const result = await invoke(argv, { cwd: bench.root, env });
      expect(result.code, argv.join(" ")).toBe(1);
      expect(result.stderr, argv.join(" ")).toBe(
        `evalgate: the state directory ${file} cannot be used: it is not a directory (EVAL_STATE_DIR_NOT_A_DIRECTORY); point --out (or EVALGATE_STATE_DIR) at a directory, or at a path that does not exist yet\n`,
      );
    }
  });

  it.skipIf(!sandboxSupport().available)(
    "a read-only state directory fails at once (was: a 30 s lock wait), and cache gc no longer blames another process",
    async () => {
      const state = join(bench.root, "s-ro");
      const first = await invoke([...base("s-ro"), "--sut", "module:sut.mjs#same"], { cwd: bench.root, env });
      expect(first.code, first.stderr).toBe(0);
      mkdirSync(join(state, "recommendations"), { recursive: true });
      const bin = join(import.meta.dirname, "..", "bin.ts");
      for (const argv of [
        [...base("s-ro"), "--sut", "module:sut.mjs#same"],
        ["cache", "gc", "--out", state],
        ["gc", "--out", state],
      ]) {
        const started = performance.now();
        const result = spawnSync(
          "bwrap",
          [
            "--dev-bind",
            "/",
            "/",
            "--ro-bind",
            state,
            state,
            process.execPath,
            "--conditions=@eval/source",
            bin,
            ...argv,
          ],
          { cwd: bench.root, encoding: "utf8" },
        );
        expect(performance.now() - started, argv.join(" ")).toBeLessThan(10_000);
        expect(result.status, result.stderr).toBe(1);
        expect(result.stderr).toBe(
          `evalgate: the state directory ${state} is not writable: ${state}: read-only file system (EROFS) (EVAL_STATE_DIR_READ_ONLY); make the state directory writable, or point --out (or EVALGATE_STATE_DIR) at a writable directory\n`,
        );
      }
      const verify = spawnSync(
        "bwrap",
        [
          "--dev-bind",
          "/",
          "/",
          "--ro-bind",
          state,
          state,
          process.execPath,
          "--conditions=@eval/source",
          bin,
          "verify",
          "--out",
          state,
        ],
        { encoding: "utf8" },
      );
      expect(verify.status, verify.stderr).toBe(0);
    },
    // Five CLI starts from source: each one's bound above is the point; together they pass 20 s on a loaded machine.
    90_000,
  );
});
