import { mkdtemp, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cacheKey, ScoreCache } from "@eval/cache";
import { invoke } from "../test-helpers.ts";

let dir: string;
const key = (n: number) =>
  cacheKey({
    case_digest: String(n),
    sut_digest: "s",
    rubric_digest: "r",
    cassette_corpus_digest: "c",
    harness_version: "h",
    cassette_canary_pin: "p",
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "evalgate-cli-cache-"));
  const cache = new ScoreCache({ dir: join(dir, "state", "cache") });
  for (const n of [1, 2, 3])
    await cache.put(key(n), {
      passed: true,
      score: 1,
      breakdown: {},
      failure_modes: [],
      cost_usd: 0,
      wall_clock_ms: 1,
    });
  const old = new Date(Date.now() - 100 * 24 * 3600 * 1000);
  await utimes(cache.entryPath(key(1)), old, old);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("evalgate cache", () => {
  it("stats reports the entries as JSON or text", async () => {
    const json = await invoke(["cache", "stats", "--out", join(dir, "state")]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ type: "cache_stats", entries: 3, orphaned_temp_files: 0 });
    const human = await invoke(["cache", "stats", "--out", join(dir, "state"), "--format", "human"]);
    expect(human.stdout).toMatch(/3 entries/);
    const empty = await invoke(["cache", "stats", "--out", join(dir, "nothing")]);
    expect(JSON.parse(empty.stdout)).toMatchObject({ entries: 0, oldest_stored_at: null });
  });

  it("gc removes entries past the retention and rejects a bad retention", async () => {
    const result = await invoke(["cache", "gc", "--out", join(dir, "state")]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ removed_entries: 1, kept_entries: 2, older_than_days: 90 });
    const bad = await invoke(["cache", "gc", "--out", join(dir, "state"), "--older-than-days", "soon"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--older-than-days must be a number/);
  });
});
