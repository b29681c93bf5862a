// A warm `evalgate run` (every case a cache hit, JSON lines, no CI outputs) loads only what it uses: the
// report views and renderers, the diff library, the yarn and bun lockfile parsers and the yaml package cost every run's
// start-up when they were imported eagerly (docs/performance.md, run-warm). Needs the built CLI.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, generateBench, type GeneratedBench } from "./benchmarks/run-bench.helpers.ts";

/** Records the URL of every module the process loads into `log`. */
const HOOK = `import { registerHooks } from "node:module";
import { appendFileSync } from "node:fs";
registerHooks({ load(url, context, next) { appendFileSync(process.env.LOADED_LOG, url + "\\n"); return next(url, context); } });
`;

/** Not needed by a warm JSON-lines run: each must stay unloaded. */
const UNNEEDED = [
  /\/packages\/report-data\//,
  /\/packages\/reports\/dist\/(html|junit|markdown|glance)\.js$/,
  /\/packages\/promotion\//,
  /\/packages\/compare\//,
  /\/node_modules\/diff\//,
  /\/node_modules\/@yarnpkg\/parsers\//,
  /\/node_modules\/jsonc-parser\//,
  /\/node_modules\/yaml\//,
];

describe("a warm run's module loading", () => {
  let bench: GeneratedBench;
  beforeAll(() => {
    bench = generateBench(2);
    writeFileSync(join(bench.root, "hook.mjs"), HOOK);
    execFileSync(process.execPath, bench.runArgs(), { cwd: bench.root, stdio: "ignore" }); // fills the cache
  }, 180_000);
  afterAll(() => rmSync(bench.root, { recursive: true, force: true }));

  it("loads no report renderer, diff or lockfile parser it does not use", () => {
    const log = join(bench.root, "loaded.txt");
    const [bin, ...args] = bench.runArgs();
    expect(bin).toBe(BIN);
    const out = execFileSync(process.execPath, ["--import", join(bench.root, "hook.mjs"), bin!, ...args], {
      cwd: bench.root,
      env: { ...process.env, LOADED_LOG: log },
      encoding: "utf8",
    });
    expect(out).toContain('"cache_hits":2');
    const loaded = readFileSync(log, "utf8").split("\n");
    expect(loaded.some((url) => url.includes("/packages/runner/dist/"))).toBe(true);
    for (const pattern of UNNEEDED) expect(loaded.filter((url) => pattern.test(url))).toEqual([]);
  }, 180_000);
});
