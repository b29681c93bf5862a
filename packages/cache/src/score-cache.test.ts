import { spawn } from "node:child_process";
import { mkdtemp, mkdir, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EvalWarning } from "@eval/errors";
import { cacheKey, ScoreCache } from "./index.ts";

const score = {
  passed: true,
  score: 0.75,
  breakdown: { fixed: 1 },
  failure_modes: [],
  cost_usd: 0.01,
  wall_clock_ms: 12,
};
const keyFor = (n: number) =>
  cacheKey({
    case_digest: `blake3:${n.toString(16).padStart(64, "0")}`,
    sut_digest: "s",
    rubric_digest: "r",
    cassette_corpus_digest: "c",
    harness_version: "h",
    cassette_canary_pin: "p",
  });

let dir: string;
let warnings: EvalWarning[];
let cache: ScoreCache;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "evalgate-cache-"));
  warnings = [];
  cache = new ScoreCache({ dir: join(dir, "cache"), onWarning: (w) => warnings.push(w) });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("ScoreCache", () => {
  it("misses, then hits with a frozen copy of what was put", async () => {
    const key = keyFor(1);
    expect(await cache.get(key)).toBeNull();
    await cache.put(key, score);
    const hit = await cache.get(key);
    expect(hit).toEqual({ ...score, failure_modes: [] });
    expect(Object.isFrozen(hit)).toBe(true);
    expect(warnings).toEqual([]);
  });

  it("leaves no temporary file behind and stores the key inside the entry, then its MAC", async () => {
    const key = keyFor(2);
    await cache.put(key, score);
    const shard = dirname(cache.entryPath(key));
    expect(await readdir(shard)).toEqual([`${key.slice(7)}.json`]);
    const [json, mac, end] = (await readFile(cache.entryPath(key), "utf8")).split("\n");
    const stored = JSON.parse(json!);
    expect(stored.cache_key).toBe(key);
    expect(stored.schema_version).toBe("evalgate.cache_entry.v1");
    expect(mac).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(end).toBe("");
  });

  it("treats a truncated entry as a miss with a warning, and a later put repairs it", async () => {
    const key = keyFor(3);
    await cache.put(key, score);
    const text = await readFile(cache.entryPath(key), "utf8");
    await writeFile(cache.entryPath(key), text.slice(0, 20));
    expect(await cache.get(key)).toBeNull();
    expect(warnings.map((w) => w.code)).toEqual(["cache.corrupt_entry"]);
    await cache.put(key, score);
    expect(await cache.get(key)).not.toBeNull();
  });

  it("treats an entry with a smuggled field as a miss (its MAC no longer matches)", async () => {
    const key = keyFor(4);
    await cache.put(key, score);
    const [json, mac] = (await readFile(cache.entryPath(key), "utf8")).split("\n");
    const stored = JSON.parse(json!);
    stored.score.llm_confidence = 0.9;
    await writeFile(cache.entryPath(key), `${JSON.stringify(stored)}\n${mac}\n`);
    expect(await cache.get(key)).toBeNull();
    expect(warnings.map((w) => w.code)).toEqual(["cache.mac_mismatch"]);
  });

  it("treats an entry filed under the wrong key as a miss", async () => {
    const [a, b] = [keyFor(5), keyFor(6)];
    await cache.put(a, score);
    await mkdir(dirname(cache.entryPath(b)), { recursive: true });
    await writeFile(cache.entryPath(b), await readFile(cache.entryPath(a)));
    expect(await cache.get(b)).toBeNull();
    expect(warnings[0]?.code).toBe("cache.mac_mismatch");
  });

  it("rejects a malformed key and an invalid score as programmer errors", async () => {
    await expect(cache.get("sha256:abc")).rejects.toThrow(/not a cache key/);
    await expect(cache.put(keyFor(7), { ...score, score: 2 })).rejects.toThrow(/not a valid BenchScore/);
  });

  it("serializes many concurrent writers of the same and different keys", async () => {
    const keys = Array.from({ length: 40 }, (_, i) => keyFor(100 + (i % 10)));
    await Promise.all(keys.map((key, i) => cache.put(key, { ...score, wall_clock_ms: i })));
    for (const key of new Set(keys)) expect(await cache.get(key)).not.toBeNull();
    const stats = await cache.stats();
    expect(stats.entries).toBe(10);
    expect(stats.orphanedTempFiles).toBe(0);
  });

  it("gc removes entries older than the retention and stale temp files, keeping the rest", async () => {
    const [old, fresh] = [keyFor(8), keyFor(9)];
    await cache.put(old, score);
    await cache.put(fresh, score);
    const longAgo = new Date(Date.now() - 91 * 24 * 3600 * 1000);
    await utimes(cache.entryPath(old), longAgo, longAgo);
    const orphan = join(dirname(cache.entryPath(fresh)), ".tmp-1-deadbeef");
    await writeFile(orphan, "{");
    await utimes(orphan, longAgo, longAgo);
    const youngOrphan = join(dirname(cache.entryPath(fresh)), ".tmp-2-deadbeef");
    await writeFile(youngOrphan, "{");
    expect((await cache.stats()).orphanedTempFiles).toBe(2);
    const result = await cache.gc();
    expect(result).toEqual({ removedEntries: 1, removedTempFiles: 1, keptEntries: 1, unverifiedEntries: 0 });
    expect(await cache.get(old)).toBeNull();
    expect(await cache.get(fresh)).not.toBeNull();
    const stats = await cache.stats();
    expect(stats.entries).toBe(1);
    expect(stats.oldestStoredAt).toBeInstanceOf(Date);
    await expect(cache.gc({ olderThanDays: -1 })).rejects.toMatchObject({ code: "EVAL_USAGE" });
    expect((await cache.gc({ olderThanDays: 0, now: new Date(Date.now() + 1000) })).removedEntries).toBe(1);
  });

  it("reports empty stats for a cache that does not exist yet", async () => {
    expect(await cache.stats()).toEqual({
      entries: 0,
      unverified: 0,
      bytes: 0,
      orphanedTempFiles: 0,
      oldestStoredAt: null,
      newestStoredAt: null,
    });
  });

  it("survives writers killed with SIGKILL at random moments: every entry left is complete", async () => {
    const cacheDir = join(dir, "cache");
    const script = join(dir, "writer.ts");
    const moduleUrl = new URL("./index.ts", import.meta.url).href;
    await writeFile(
      script,
      `import { ScoreCache, cacheKey } from ${JSON.stringify(moduleUrl)};
       const cache = new ScoreCache({ dir: ${JSON.stringify(cacheDir)} });
       const big = Object.fromEntries(Array.from({ length: 200 }, (_, i) => ["k" + i, i / 200]));
       for (let i = 0; ; i++) {
         const key = cacheKey({ case_digest: String(i % 50), sut_digest: "s", rubric_digest: "r", cassette_corpus_digest: "c", harness_version: "h", cassette_canary_pin: "p" });
         await cache.put(key, { passed: true, score: 0.5, breakdown: big, failure_modes: [], cost_usd: 0, wall_clock_ms: i });
         if (i === 0) process.stdout.write("ready\\n");
       }`,
    );
    for (let round = 0; round < 6; round += 1) {
      const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] });
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60));
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    const survivor = new ScoreCache({ dir: cacheDir, onWarning: (w) => warnings.push(w) });
    const stats = await survivor.stats();
    expect(stats.entries).toBeGreaterThan(0);
    for (let i = 0; i < 50; i += 1) {
      const key = cacheKey({
        case_digest: String(i),
        sut_digest: "s",
        rubric_digest: "r",
        cassette_corpus_digest: "c",
        harness_version: "h",
        cassette_canary_pin: "p",
      });
      const hit = await survivor.get(key);
      if (hit !== null) expect(hit.score).toBe(0.5);
    }
    expect(warnings).toEqual([]);
    // A writer killed while holding the lock leaves it stale; the next writer takes it over.
    await survivor.put(keyFor(1000), score);
    expect(await survivor.get(keyFor(1000))).not.toBeNull();
  }, 60_000);
});
