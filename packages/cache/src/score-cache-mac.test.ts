// Attacks on the score cache: a cache entry changed by anything that does not hold the key (a hand edit,
// a hostile rubric or SUT that reached the cache directory) must never turn into a score.
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import {
  chmod,
  chown,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  unlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EvalWarning } from "@eval/errors";
import { cacheKey, ScoreCache } from "./index.ts";

const failing = {
  passed: false,
  score: 0,
  breakdown: { fixed: 0 },
  failure_modes: [],
  cost_usd: 0.02,
  wall_clock_ms: 40,
};
const passing = {
  passed: true,
  score: 1,
  breakdown: { fixed: 1 },
  failure_modes: [],
  cost_usd: 0.02,
  wall_clock_ms: 40,
};
const keyFor = (n: number) =>
  cacheKey({
    case_digest: String(n),
    sut_digest: "s",
    rubric_digest: "r",
    cassette_corpus_digest: "c",
    harness_version: "h",
    cassette_canary_pin: "p",
  });

let root: string;
let cacheDir: string;
let warnings: EvalWarning[];
let cache: ScoreCache;
const open = (options: { keyPath?: string } = {}) =>
  new ScoreCache({ dir: cacheDir, onWarning: (w) => warnings.push(w), ...options });

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-cache-mac-"));
  cacheDir = join(root, "cache");
  warnings = [];
  cache = open();
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** What a process holding the key file can do (and only such a process): sign arbitrary bytes. */
async function forgeWithKey(keyPath: string, key: string, body: string): Promise<string> {
  const secret = Buffer.from((await readFile(keyPath, "utf8")).trim(), "hex");
  const mac = createHmac("sha256", secret).update(`evalgate.cache_entry_mac.v1\n${key}\n`).update(body).digest("hex");
  return `${body}\nhmac-sha256:${mac}\n`;
}

describe("attacks on cached scores", () => {
  it("(a) a failing entry hand-edited to passed: true, score: 1 is a miss with a warning, and the next put repairs it", async () => {
    const key = keyFor(1);
    await cache.put(key, failing);
    const path = cache.entryPath(key);
    const text = await readFile(path, "utf8");
    const forged = text.replace('"passed":false,"score":0', '"passed":true,"score":1');
    expect(forged).not.toBe(text);
    await writeFile(path, forged);

    expect(await open().get(key)).toBeNull();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: "cache.mac_mismatch", details: { path, reason: "mismatch" } });
    expect(warnings[0]!.message).toContain(path);
    expect(warnings[0]!.message).toMatch(/ignored/);

    await cache.put(key, failing);
    expect(await cache.get(key)).toMatchObject({ passed: false, score: 0 });
  });

  it("(b) a passing entry's file copied onto another key's path is a miss, also with its cache_key rewritten", async () => {
    const [good, bad] = [keyFor(2), keyFor(3)];
    await cache.put(good, passing);
    await cache.put(bad, failing);
    // The plain copy.
    await copyFile(cache.entryPath(good), cache.entryPath(bad));
    expect(await cache.get(bad)).toBeNull();
    // The copy with the stored key rewritten to match its new place.
    const text = await readFile(cache.entryPath(good), "utf8");
    await writeFile(cache.entryPath(bad), text.replace(good, bad));
    expect(await cache.get(bad)).toBeNull();
    expect(warnings.map((w) => w.code)).toEqual(["cache.mac_mismatch", "cache.mac_mismatch"]);
    expect(await cache.get(good)).toMatchObject({ passed: true });
  });

  it("(c) with the key file deleted or replaced, every entry is a miss; a malformed key file is an EvalError", async () => {
    const keys = [keyFor(4), keyFor(5)];
    for (const key of keys) await cache.put(key, passing);
    const keyPath = join(root, "cache.key");
    expect(cache.keyPath).toBe(keyPath);

    await unlink(keyPath);
    const afterDelete = open();
    for (const key of keys) expect(await afterDelete.get(key)).toBeNull();
    expect(warnings.map((w) => w.code)).toEqual(["cache.mac_mismatch", "cache.mac_mismatch"]);
    expect((await readFile(keyPath, "utf8")).trim()).toMatch(/^[0-9a-f]{64}$/); // a new key, created on first use

    warnings = [];
    for (const key of keys) await cache.put(key, passing); // still the old key, cached by this instance
    await writeFile(keyPath, `${"ab".repeat(32)}\n`, { mode: 0o600 }); // a well-formed but different key
    const afterReplace = open();
    for (const key of keys) expect(await afterReplace.get(key)).toBeNull();
    expect(warnings.map((w) => w.code)).toEqual(["cache.mac_mismatch", "cache.mac_mismatch"]);

    for (const malformed of ["", "not a key\n", `${"ab".repeat(31)}\n`, `${"AB".repeat(32)}\n`]) {
      await writeFile(keyPath, malformed, { mode: 0o600 });
      const broken = open();
      await expect(broken.get(keys[0]!)).rejects.toMatchObject({
        code: "EVAL_IO",
        message: expect.stringMatching(/cache key file .*cache\.key.* not 64 hex/),
      });
      await expect(broken.put(keys[0]!, passing)).rejects.toMatchObject({ code: "EVAL_IO" });
      await expect(broken.stats()).rejects.toMatchObject({ code: "EVAL_IO" });
    }
    // Recovery is deleting it: a new key, every entry recomputed.
    await unlink(keyPath);
    const fresh = open();
    warnings = [];
    expect(await fresh.get(keys[0]!)).toBeNull();
    await fresh.put(keys[0]!, passing);
    expect(await fresh.get(keys[0]!)).not.toBeNull();
  });

  it("(d) eight processes creating the key at once end with one key that verifies every entry", async () => {
    const script = join(root, "writer.ts");
    const moduleUrl = new URL("./index.ts", import.meta.url).href;
    await writeFile(
      script,
      `import { ScoreCache, cacheKey } from ${JSON.stringify(moduleUrl)};
       const id = Number(process.argv[2]);
       const warnings = [];
       const key = (n) => cacheKey({ case_digest: String(n), sut_digest: "s", rubric_digest: "r", cassette_corpus_digest: "c", harness_version: "h", cassette_canary_pin: "p" });
       process.stdin.once("data", async () => {
         const cache = new ScoreCache({ dir: ${JSON.stringify(cacheDir)}, onWarning: (w) => warnings.push(w) });
         await cache.put(key(id), { passed: true, score: id / 10, breakdown: {}, failure_modes: [], cost_usd: 0, wall_clock_ms: id });
         const hit = await cache.get(key(id));
         process.stdout.write(JSON.stringify({ id, score: hit === null ? null : hit.score, warnings }) + "\\n");
         process.exit(0);
       });
       process.stdout.write("ready\\n");`,
    );
    const children = Array.from({ length: 8 }, (_, id) => {
      const child = spawn(process.execPath, [script, String(id)], { stdio: ["pipe", "pipe", "inherit"] });
      let out = "";
      child.stdout.setEncoding("utf8");
      const ready = new Promise<void>((resolve) => {
        const onData = (chunk: string) => {
          out += chunk;
          if (out.includes("ready\n")) {
            child.stdout.off("data", onData);
            out = out.slice(out.indexOf("ready\n") + 6);
            child.stdout.on("data", (more: string) => (out += more));
            resolve();
          }
        };
        child.stdout.on("data", onData);
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      return { child, ready, exited, output: () => out };
    });
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.child.stdin.write("go\n"); // all at once: every one finds no key file yet
    expect(await Promise.all(children.map((c) => c.exited))).toEqual(Array(8).fill(0));
    const reports = children.map((c) => JSON.parse(c.output()));
    expect(reports.map((r) => [r.score, r.warnings])).toEqual(Array.from({ length: 8 }, (_, id) => [id / 10, []]));

    // One key file, no temp file left beside it, and it verifies every process's entry.
    expect((await readdir(root)).sort()).toEqual(["cache", "cache.key", "writer.ts"]);
    const survivor = open();
    for (let id = 0; id < 8; id += 1) expect(await survivor.get(keyFor(id))).toMatchObject({ score: id / 10 });
    expect(warnings).toEqual([]);
    expect((await survivor.stats()).unverified).toBe(0);
  }, 60_000);

  it("(d') two caches in one process racing to create the key share one key", async () => {
    const [a, b] = [open(), open()];
    await Promise.all([a.put(keyFor(6), passing), b.put(keyFor(7), passing), a.get(keyFor(7)), b.get(keyFor(6))]);
    expect(await a.get(keyFor(7))).not.toBeNull();
    expect(await b.get(keyFor(6))).not.toBeNull();
    expect(warnings).toEqual([]);
    expect((await readdir(root)).sort()).toEqual(["cache", "cache.key"]);
  });

  it("(e) the key file is 32 random bytes in hex, mode 0600, outside the cache directory", async () => {
    await cache.put(keyFor(8), passing);
    const keyPath = join(root, "cache.key");
    const info = await stat(keyPath);
    if (process.platform !== "win32") expect(info.mode & 0o777).toBe(0o600);
    expect(await readFile(keyPath, "utf8")).toMatch(/^[0-9a-f]{64}\n$/);
    const other = join(await mkdtemp(join(tmpdir(), "evalgate-cache-mac-other-")), "cache.key");
    try {
      await new ScoreCache({ dir: join(dirname(other), "cache") }).put(keyFor(8), passing);
      expect(await readFile(other, "utf8")).not.toBe(await readFile(keyPath, "utf8"));
    } finally {
      await rm(dirname(other), { recursive: true, force: true });
    }
    // The key never appears in the cache directory, and an entry holds nothing derived from it but the MAC.
    const entry = await readFile(cache.entryPath(keyFor(8)), "utf8");
    expect(entry).not.toContain((await readFile(keyPath, "utf8")).trim());
  });

  it("an entry written before entries carried a MAC is a miss, and the warning says so", async () => {
    const key = keyFor(9);
    const path = cache.entryPath(key);
    await mkdir(dirname(path), { recursive: true });
    const legacy = {
      schema_version: "evalgate.cache_entry.v1",
      cache_key: key,
      stored_at: new Date().toISOString(),
      score: passing,
    };
    await writeFile(path, `${JSON.stringify(legacy)}\n`);
    expect(await cache.get(key)).toBeNull();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: "cache.mac_mismatch", details: { path, reason: "missing" } });
    expect(warnings[0]!.message).toMatch(/no MAC.*before.*ignored/);
    expect(await cache.stats()).toMatchObject({ entries: 1, unverified: 1 });
  });

  it("a MAC line that is damaged, or a MAC over a different key, is a miss", async () => {
    const key = keyFor(10);
    await cache.put(key, passing);
    const path = cache.entryPath(key);
    const text = await readFile(path, "utf8");
    await writeFile(
      path,
      text.replace(/hmac-sha256:([0-9a-f])/, (_, c: string) => `hmac-sha256:${c === "0" ? "1" : "0"}`),
    );
    expect(await cache.get(key)).toBeNull();
    await writeFile(path, text.replace(/\nhmac-sha256:.*\n$/, "\nhmac-sha256:zz\n"));
    expect(await cache.get(key)).toBeNull();
    await writeFile(path, `${text}extra\n`);
    expect(await cache.get(key)).toBeNull();
    expect(warnings.map((w) => w.code)).toEqual(["cache.mac_mismatch", "cache.corrupt_entry", "cache.corrupt_entry"]);
  });

  it("documented limit: a process that can read the key file can forge; the MAC only moves the secret to that file", async () => {
    const key = keyFor(11);
    await cache.put(key, failing);
    const path = cache.entryPath(key);
    const body = (await readFile(path, "utf8"))
      .split("\n")[0]!
      .replace('"passed":false,"score":0', '"passed":true,"score":1');
    await writeFile(path, await forgeWithKey(cache.keyPath, key, body));
    expect(await cache.get(key)).toMatchObject({ passed: true, score: 1 });
    expect(warnings).toEqual([]);
  });

  it("a correctly signed entry that is not a valid cache entry is still a miss (defense in depth)", async () => {
    const key = keyFor(12);
    await cache.put(key, passing);
    const path = cache.entryPath(key);
    const stored = JSON.parse((await readFile(path, "utf8")).split("\n")[0]!);
    stored.score.llm_confidence = 0.9;
    await writeFile(path, await forgeWithKey(cache.keyPath, key, JSON.stringify(stored)));
    expect(await cache.get(key)).toBeNull();
    await writeFile(path, await forgeWithKey(cache.keyPath, key, "{not json"));
    expect(await cache.get(key)).toBeNull();
    stored.score.llm_confidence = undefined;
    stored.cache_key = keyFor(13);
    await writeFile(path, await forgeWithKey(cache.keyPath, key, JSON.stringify(stored)));
    expect(await cache.get(key)).toBeNull();
    expect(warnings.map((w) => w.code)).toEqual(["cache.corrupt_entry", "cache.corrupt_entry", "cache.corrupt_entry"]);
    expect(warnings.map((w) => w.message).join("\n")).toMatch(/llm_confidence|Unrecognized/);
  });

  it("stats and gc count entries that do not verify; gc also removes key temp files left by killed processes", async () => {
    const [good, forged, old] = [keyFor(14), keyFor(15), keyFor(16)];
    for (const key of [good, forged, old]) await cache.put(key, failing);
    const path = cache.entryPath(forged);
    await writeFile(path, (await readFile(path, "utf8")).replace('"passed":false', '"passed":true'));
    const longAgo = new Date(Date.now() - 91 * 24 * 3600 * 1000);
    await utimes(cache.entryPath(old), longAgo, longAgo);
    const keyTemp = join(root, "cache.key.tmp-1-deadbeef");
    await writeFile(keyTemp, "ab".repeat(32));
    await utimes(keyTemp, longAgo, longAgo);
    await writeFile(join(root, "cache.key.tmp-2-deadbeef"), "ab".repeat(32)); // young: maybe a live writer's

    expect(await cache.stats()).toMatchObject({ entries: 3, unverified: 1, orphanedTempFiles: 2 });
    expect(warnings).toEqual([]); // stats and gc count, they do not warn per entry
    expect(await cache.gc()).toEqual({ removedEntries: 1, removedTempFiles: 1, keptEntries: 2, unverifiedEntries: 1 });
    expect((await readdir(root)).sort()).toEqual(["cache", "cache.key", "cache.key.tmp-2-deadbeef"]);
    // A cache whose key file does not exist yet: nothing verifies, and neither stats nor gc creates one.
    const elsewhere = new ScoreCache({ dir: cacheDir, keyPath: join(root, "other", "cache.key") });
    expect(await elsewhere.stats()).toMatchObject({ entries: 2, unverified: 2 });
    expect(await elsewhere.gc()).toMatchObject({ keptEntries: 2, unverifiedEntries: 2 });
    expect(await readdir(root)).not.toContain("other");
  });

  it("keyPath is an option; a key file inside the cache directory is refused", async () => {
    const keyPath = join(root, "secrets", "evalgate.key");
    const custom = new ScoreCache({ dir: cacheDir, keyPath });
    expect(custom.keyPath).toBe(keyPath);
    await custom.put(keyFor(17), passing);
    expect(await readFile(keyPath, "utf8")).toMatch(/^[0-9a-f]{64}\n$/);
    expect(await custom.get(keyFor(17))).not.toBeNull();
    expect(await cache.get(keyFor(17))).toBeNull(); // the default key (another file) does not verify it
    for (const inside of [join(cacheDir, "cache.key"), join(cacheDir, "ab", "x.key"), cacheDir]) {
      expect(() => new ScoreCache({ dir: cacheDir, keyPath: inside })).toThrow(
        expect.objectContaining({ code: "EVAL_USAGE" }),
      );
    }
    expect(new ScoreCache({ dir: "state/cache" }).keyPath).toBe(join(process.cwd(), "state", "cache.key"));
  });

  it.skipIf(process.platform === "win32")(
    "a key file others can read or write, or that another user owns, is refused",
    async () => {
      await cache.put(keyFor(18), passing);
      const keyPath = cache.keyPath;
      await chmod(keyPath, 0o644);
      await expect(open().get(keyFor(18))).rejects.toMatchObject({
        code: "EVAL_IO",
        message: expect.stringMatching(/mode 0644/),
        hint: expect.stringMatching(/chmod 600/),
      });
      await chmod(keyPath, 0o600);
      expect(await open().get(keyFor(18))).not.toBeNull();
      if (process.getuid?.() === 0) {
        await chown(keyPath, 12345, 12345);
        await expect(open().get(keyFor(18))).rejects.toMatchObject({
          code: "EVAL_IO",
          message: expect.stringMatching(/owned by uid 12345/),
        });
      }
      await rm(keyPath);
      await mkdir(keyPath);
      await expect(open().get(keyFor(18))).rejects.toMatchObject({ code: "EVAL_IO" });
    },
  );
});
