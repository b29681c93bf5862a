import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CASE_DETAIL_SCHEMA_VERSION } from "@eval/models";
import { detailIndexPath } from "@eval/state-layout";
import { indexCaseDetail, isCachedDetail, linkCachedDetail } from "./case-detail.ts";

const KEY = `blake3:${"ab".repeat(32)}`;
let runsDir: string;

const detail = (cacheKey: string) => ({
  schema_version: CASE_DETAIL_SCHEMA_VERSION,
  run_id: "run-a",
  task_class: "demo",
  case_id: "c-1",
  cache_key: cacheKey,
  invocation_tag: "bench:2026-01-01T00:00:00.000Z:demo:c-1",
  sut_output: { diff: "--- a\n+++ b\n" },
  sut_error: null,
  sut_wall_clock_ms: 12,
  rubric: null,
  score: { passed: false, score: 0.5, breakdown: { k: 1 }, failure_modes: [], cost_usd: 0.01, wall_clock_ms: 20 },
});

beforeAll(async () => {
  runsDir = await mkdtemp(join(tmpdir(), "evalgate-case-detail-"));
});
afterAll(async () => {
  await rm(runsDir, { recursive: true, force: true });
});

describe("cache-hit details", () => {
  it("links the executing run's detail into the hitting run, where it reads as a cache hit", async () => {
    await mkdir(join(runsDir, "run-a", "cases"), { recursive: true });
    await writeFile(join(runsDir, "run-a", "cases", "c-1.json"), JSON.stringify(detail(KEY)));
    indexCaseDetail(runsDir, KEY, "run-a", "c-1.json");
    expect(detailIndexPath(runsDir, KEY)).toBe(join(runsDir, ".detail-index", `${"ab".repeat(32)}.json`));
    const linked = linkCachedDetail(runsDir, KEY, "run-b", "c-1.json");
    expect(linked).toBe(join(runsDir, "run-b", "cases", "c-1.json"));
    const written = JSON.parse(await readFile(linked!, "utf8"));
    expect(written).toMatchObject({ run_id: "run-a", sut_output: { diff: "--- a\n+++ b\n" } });
    expect((await stat(linked!)).ino).toBe((await stat(join(runsDir, "run-a", "cases", "c-1.json"))).ino);
    expect(isCachedDetail(written, "run-b")).toBe(true);
    expect(isCachedDetail(written, "run-a")).toBe(false);
    expect(isCachedDetail({ run_id: "run-a", from_cache: { in_run_id: "run-a" } }, "run-a")).toBe(true);
  });

  it("returns null when there is no index entry, the detail is gone, damaged, or of another key", async () => {
    expect(linkCachedDetail(runsDir, `blake3:${"cd".repeat(32)}`, "run-b", "c-1.json")).toBeNull();
    const other = `blake3:${"ef".repeat(32)}`;
    indexCaseDetail(runsDir, other, "run-gone", "c-9.json");
    expect(linkCachedDetail(runsDir, other, "run-b", "c-9.json")).toBeNull();
    // The detail on disk names another cache key: never shown for this one.
    indexCaseDetail(runsDir, other, "run-a", "c-1.json");
    expect(linkCachedDetail(runsDir, other, "run-b", "c-1.json")).toBeNull();
    await writeFile(detailIndexPath(runsDir, other), "{not json");
    expect(linkCachedDetail(runsDir, other, "run-b", "c-1.json")).toBeNull();
    await writeFile(detailIndexPath(runsDir, other), JSON.stringify({ run_id: 3 }));
    expect(linkCachedDetail(runsDir, other, "run-b", "c-1.json")).toBeNull();
    // A pointer naming a file outside the run's cases directory is never followed.
    await writeFile(
      detailIndexPath(runsDir, KEY),
      JSON.stringify({ run_id: "run-a", file: "../../run-a/cases/c-1.json" }),
    );
    expect(linkCachedDetail(runsDir, KEY, "run-b", "c-1.json")).toBeNull();
  });

  it("proves the key from the head of a detail in the writer's layout, and parses anything else whole", async () => {
    const key = `blake3:${"12".repeat(32)}`;
    const other = `blake3:${"34".repeat(32)}`;
    const write = async (runId: string, content: unknown) => {
      await mkdir(join(runsDir, runId, "cases"), { recursive: true });
      await writeFile(join(runsDir, runId, "cases", "c-1.json"), `${JSON.stringify(content, null, 2)}\n`);
      indexCaseDetail(runsDir, key, runId, "c-1.json");
      return linkCachedDetail(runsDir, key, `${runId}-hit`, "c-1.json");
    };
    // The writer's layout, with a large SUT output after the key.
    expect(await write("run-pretty", { ...detail(key), sut_output: { diff: "x".repeat(200_000) } })).not.toBeNull();
    // The key named only inside a nested object (deeper indentation) is not the detail's key.
    expect(await write("run-nested", { ...detail(other), sut_output: { cache_key: key } })).toBeNull();
    // Fields before the key longer than the head: parsed whole, still found (and still refused for another key).
    expect(
      await write("run-long", {
        schema_version: CASE_DETAIL_SCHEMA_VERSION,
        run_id: "run-long",
        task_class: "t".repeat(5000),
        cache_key: key,
      }),
    ).not.toBeNull();
    expect(
      await write("run-long-other", {
        schema_version: CASE_DETAIL_SCHEMA_VERSION,
        task_class: "t".repeat(5000),
        cache_key: other,
      }),
    ).toBeNull();
  });
});
