// `evalgate runs` through the built CLI: newest first, filters, jsonl and the table, from a subdirectory
// of a project whose evalgate.config.json names the state directory.
import { mkdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuiltCli } from "../test-helpers.ts";
import { makeUpperBench } from "./run.test-helpers.ts";

let bench: { root: string; benchRoot: string; benchPath: string };
let sub: string;
const runIds: string[] = [];
const entries = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "alpha", "a-2": "beta" });
  writeFileSync(join(bench.root, "evalgate.config.json"), JSON.stringify({ bench_root: "bench", state_dir: "state" }));
  sub = join(bench.root, "src", "deep");
  mkdirSync(sub, { recursive: true });
  const env = { PATH: process.env.PATH };
  // Oldest to newest: a full run, a subset run of another SUT, an incomplete (cost-capped) run.
  for (const argv of [
    ["--sut", "module:sut.mjs#upper"],
    ["--sut", "module:sut.mjs#same", "--cases", "a-1"],
    ["--sut", "command:node upper.mjs", "--max-cost-usd", "0"],
  ]) {
    const result = await runBuiltCli(["run", "--task-class", "upper", "--quiet", ...argv], { cwd: bench.root, env });
    expect([0, 2]).toContain(result.code);
    runIds.push(JSON.parse(result.stdout.trim().split("\n").at(-1)!).run_id as string);
  }
}, 300_000);
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

describe("evalgate runs", () => {
  it("lists every recorded run newest first, with its figures, from a subdirectory", async () => {
    const result = await runBuiltCli(["runs"], { cwd: sub });
    expect(result.code, result.stderr).toBe(0);
    const listed = entries(result.stdout);
    expect(listed.map((entry) => entry.run_id)).toEqual([...runIds].reverse());
    expect(listed[2]).toMatchObject({
      type: "recorded_run",
      task_class: "upper",
      sut_label: "module:sut.mjs#upper",
      scope: "full",
      case_count: 2,
      mean_score: 1,
      complete: true,
      signed: false,
    });
    expect(listed[2]!.sut_digest).toMatch(/^blake3:[0-9a-f]{64}$/);
    expect(listed[2]!.lower_bound_95).toBeGreaterThan(0);
    expect(listed[1]).toMatchObject({
      sut_label: "module:sut.mjs#same",
      scope: "subset",
      case_count: 1,
      mean_score: 0,
      complete: true,
    });
    expect(listed[0]).toMatchObject({ sut_label: "command:node upper.mjs", complete: false });
    expect(String(listed[0]!.run_id)).toMatch(/^partial:/);
  }, 120_000);

  it("filters by task class, SUT label or digest, completeness, and limits", async () => {
    const all = entries((await runBuiltCli(["runs"], { cwd: sub })).stdout);
    const ids = async (...argv: string[]) => {
      const result = await runBuiltCli(["runs", ...argv], { cwd: sub });
      expect(result.code, result.stderr).toBe(0);
      return entries(result.stdout).map((entry) => entry.run_id);
    };
    expect(await ids("--sut", "module:sut.mjs#same")).toEqual([runIds[1]]);
    expect(await ids("--sut", String(all[2]!.sut_digest).slice("blake3:".length, "blake3:".length + 12))).toEqual([
      runIds[0],
    ]);
    expect(await ids("--complete")).toEqual([runIds[1], runIds[0]]);
    expect(await ids("--no-complete")).toEqual([runIds[2]]);
    expect(await ids("--limit", "1")).toEqual([runIds[2]]);
    expect(await ids("--complete", "--limit", "1")).toEqual([runIds[1]]);
    expect(await ids("--task-class", "other")).toEqual([]);
  }, 300_000);

  it("--format human prints a table; a bad --limit is one usage line", async () => {
    const table = await runBuiltCli(["runs", "--format", "human"], { cwd: sub });
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      /^run id\s+recorded\s+task class\s+sut\s+sut digest\s+scope\s+cases\s+mean\s+bound\s+complete\s+signed$/,
    );
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(
      new RegExp(
        `^${runIds[0]}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ\\s+upper\\s+module:sut\\.mjs#upper\\s+blake3:[0-9a-f]{12}\\s+full\\s+2\\s+1\\.000\\s+0\\.\\d{3}\\s+yes\\s+unsigned$`,
      ),
    );
    const bad = await runBuiltCli(["runs", "--limit", "0"], { cwd: sub });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      'evalgate: --limit must be a whole number >= 1, got "0" (EVAL_USAGE); run `evalgate <command> --help` for the accepted flags\n',
    );
    const none = await runBuiltCli(["runs", "--format", "human", "--task-class", "other"], { cwd: sub });
    expect(none.stdout).toBe("no recorded runs match\n");
  }, 180_000);

  it("compare's hint for an unknown run id points at `evalgate runs`", async () => {
    const result = await runBuiltCli(["compare", "--baseline", runIds[0]!, "--candidate", "20990101T000000Z-nope"], {
      cwd: sub,
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("`evalgate runs` lists the recorded run ids");
  }, 120_000);
});
