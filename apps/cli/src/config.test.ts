import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfigFile, Settings } from "./config.ts";

function scratch(files: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), "evalgate-config-"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), typeof content === "string" ? content : JSON.stringify(content));
  }
  return root;
}

describe("configuration precedence", () => {
  it("flags > env > config file > defaults", () => {
    const root = scratch({ "evalgate.config.json": { concurrency: 3, bench_root: "benches", max_cost_usd: 2 } });
    const sub = join(root, "a", "b");
    mkdirSync(sub, { recursive: true });
    const settings = new Settings({ flags: { concurrency: "7" }, env: { EVALGATE_MAX_COST_USD: "9" }, cwd: sub });
    expect(settings.number("concurrency", 4)).toBe(7);
    expect(settings.number("max_cost_usd", 5)).toBe(9);
    expect(settings.number("timeout_per_case_seconds", 600)).toBe(600);
    expect(settings.path("bench_root", "bench")).toBe(join(root, "benches"));
    expect(settings.path("state_dir", ".evalgate")).toBe(join(root, ".evalgate"));
    const fromEnv = new Settings({ flags: {}, env: { EVALGATE_BENCH_ROOT: "x", EVALGATE_CONCURRENCY: "2" }, cwd: sub });
    expect(fromEnv.path("bench_root", "bench")).toBe(join(sub, "x"));
    expect(fromEnv.number("concurrency", 4)).toBe(2);
    expect(new Settings({ flags: { bench_root: "/abs" }, env: {}, cwd: sub }).path("bench_root", "bench")).toBe("/abs");
  });

  it("reads the evalgate key of the nearest package.json", () => {
    const root = scratch({ "package.json": { name: "sut", evalgate: { format: "human" } } });
    expect(new Settings({ flags: {}, env: {}, cwd: root }).format()).toBe("human");
    expect(new Settings({ flags: { format: "jsonl" }, env: {}, cwd: root }).format()).toBe("jsonl");
  });

  it("skips a package.json without an evalgate key and falls back to defaults", () => {
    const root = scratch({ "package.json": { name: "plain" } });
    const loaded = loadConfigFile(root);
    expect(loaded.values).toEqual({});
    expect(new Settings({ flags: {}, env: {}, cwd: root }).format()).toBe("jsonl");
  });

  it.each([
    [{ "evalgate.config.json": { concurency: 3 } }, /evalgate.config.json: \(root\): Unrecognized key: "concurency"/],
    [{ "evalgate.config.json": "{ not json" }, /is not valid JSON/],
    [{ "package.json": { evalgate: { concurrency: 0 } } }, /key "evalgate"\): concurrency: Too small/],
  ])("rejects a bad config file with the file and field named", (files, message) => {
    const root = scratch(files);
    expect(() => new Settings({ flags: {}, env: {}, cwd: root })).toThrow(message);
  });

  it.each([
    [{ concurrency: "0" }, {}, /concurrency must be a whole number >= 1, got "0"/],
    [{ concurrency: "2.5" }, {}, /concurrency must be a whole number/],
    [{}, { EVALGATE_MAX_COST_USD: "lots" }, /max_cost_usd must be a number >= 0, got "lots"/],
    [{ format: "xml" }, {}, /format must be jsonl or human/],
  ])("rejects bad values wherever they come from", (flags, env, message) => {
    const settings = new Settings({ flags, env, cwd: scratch({}) });
    expect(() => {
      settings.number("concurrency", 1);
      settings.number("max_cost_usd", 1);
      settings.format();
    }).toThrow(message);
  });
});
