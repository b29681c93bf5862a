// Every package is publishable and usable from outside the monorepo: pack each one as npm would
// publish it, install the tarballs into a scratch project outside the workspace, then import every
// package by name, type-check that import with the packed .d.ts files, and run it.
// Needs `pnpm build` first (scripts/test.sh builds before testing).
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = join(import.meta.dirname, "..");
const packageDirs = [...readdirSync(join(repo, "packages")).map((name) => join(repo, "packages", name)), join(repo, "apps", "cli")];
// Private packages (@eval/test-utils) are never published: only what ships is packed and checked.
const manifests = packageDirs
  .map((dir) => ({ dir, ...(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; files: string[]; private?: boolean }) }))
  .filter((manifest) => manifest.private !== true);

describe("packed packages", () => {
  let scratch: string;
  const tarballs = new Map<string, string>();

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), "evalgate-packed-"));
    const packDir = join(scratch, "tarballs");
    for (const manifest of manifests) {
      const { stdout } = await run("pnpm", ["pack", "--pack-destination", packDir, "--json"], { cwd: manifest.dir });
      tarballs.set(manifest.name, (JSON.parse(stdout) as { filename: string }).filename);
    }
    const fileSpecs = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
    const project = join(scratch, "consumer");
    await run("mkdir", ["-p", project]);
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module", dependencies: { ...fileSpecs, "@types/node": "^24.0.0" }, overrides: fileSpecs }),
    );
    await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--ignore-scripts"], { cwd: project });
    const imports = manifests
      .filter((manifest) => manifest.name !== "evalgate")
      .map((manifest, index) => `import * as pkg${index} from "${manifest.name}";`);
    writeFileSync(
      join(project, "check.ts"),
      [
        ...imports,
        'import { runCli } from "evalgate";',
        'import type { BenchScore } from "@eval/models";',
        'import { BenchScoreSchema, parseWire } from "@eval/models";',
        'const score: BenchScore = parseWire(BenchScoreSchema, { passed: true, score: 1, breakdown: {}, failure_modes: [], cost_usd: 0, wall_clock_ms: 1 });',
        "let mutable = true;",
        "try {",
        "  // @ts-expect-error parsed values are readonly",
        "  score.score = 0;",
        "} catch {",
        "  mutable = false;",
        "}",
        `const loaded = [${imports.map((_, index) => `pkg${index}`).join(", ")}, runCli].length;`,
        'console.log(JSON.stringify({ loaded, frozen: Object.isFrozen(score) && !mutable }));',
      ].join("\n"),
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", target: "es2023", noEmit: true, types: ["node"], skipLibCheck: false, allowImportingTsExtensions: true, lib: ["es2024"] }, files: ["check.ts"] }),
    );
  }, 240_000);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it.each(manifests.map((manifest) => [manifest.name, manifest] as const))("%s declares exports with types, files and no side effects", (_name, manifest) => {
    const pkg = JSON.parse(readFileSync(join(manifest.dir, "package.json"), "utf8")) as Record<string, unknown>;
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.files).toEqual(expect.arrayContaining(["dist", "README.md"]));
    expect(pkg.exports).toMatchObject({ ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } });
    expect(pkg.engines).toEqual({ node: ">=22.18.0" });
  });

  it("type-checks imports of every package by name from outside the workspace", async () => {
    const tsc = join(repo, "node_modules", ".bin", "tsc");
    await expect(run(tsc, ["-p", join(scratch, "consumer", "tsconfig.json")])).resolves.toBeDefined();
  });

  it("imports and runs every package by name from outside the workspace", async () => {
    const { stdout } = await run(process.execPath, [join(scratch, "consumer", "check.ts")]);
    expect(JSON.parse(stdout)).toEqual({ loaded: manifests.length, frozen: true });
  });

  it("installs a working evalgate binary", async () => {
    const { stdout } = await run(join(scratch, "consumer", "node_modules", ".bin", "evalgate"), ["--version"]);
    expect(stdout.trim()).toBe("0.1.0");
  });

  it("ships no tests, sources outside dist, or build info", async () => {
    const { stdout } = await run("tar", ["-tzf", tarballs.get("@eval/models")!]);
    const files = stdout.trim().split("\n");
    expect(files).toContain("package/dist/index.js");
    expect(files).toContain("package/dist/index.d.ts");
    expect(files).toContain("package/schemas/bench-score.schema.json");
    expect(files.filter((file) => /\.test\.|tsbuildinfo|package\/src\//.test(file))).toEqual([]);
  });
});
