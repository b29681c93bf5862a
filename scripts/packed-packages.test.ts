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
const packageDirs = [
  ...readdirSync(join(repo, "packages")).map((name) => join(repo, "packages", name)),
  join(repo, "apps", "cli"),
];
// Private packages (@eval/test-utils) are never published: only what ships is packed and checked.
const manifests = packageDirs
  .map((dir) => ({
    dir,
    ...(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      name: string;
      files: string[];
      private?: boolean;
    }),
  }))
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
      JSON.stringify({
        name: "consumer",
        private: true,
        type: "module",
        dependencies: { ...fileSpecs, "@types/node": "^24.0.0" },
        overrides: fileSpecs,
      }),
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
        "const score: BenchScore = parseWire(BenchScoreSchema, { passed: true, score: 1, breakdown: {}, failure_modes: [], cost_usd: 0, wall_clock_ms: 1 });",
        "let mutable = true;",
        "try {",
        "  // @ts-expect-error parsed values are readonly",
        "  score.score = 0;",
        "} catch {",
        "  mutable = false;",
        "}",
        `const loaded = [${imports.map((_, index) => `pkg${index}`).join(", ")}, runCli].length;`,
        "console.log(JSON.stringify({ loaded, frozen: Object.isFrozen(score) && !mutable }));",
      ].join("\n"),
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "nodenext",
          target: "es2023",
          noEmit: true,
          types: ["node"],
          skipLibCheck: false,
          allowImportingTsExtensions: true,
          lib: ["es2024"],
        },
        files: ["check.ts"],
      }),
    );
  }, 240_000);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it.each(manifests.map((manifest) => [manifest.name, manifest] as const))(
    "%s declares exports with types, files and no side effects",
    (_name, manifest) => {
      const pkg = JSON.parse(readFileSync(join(manifest.dir, "package.json"), "utf8")) as Record<string, unknown>;
      expect(pkg.sideEffects).toBe(false);
      expect(pkg.files).toEqual(expect.arrayContaining(["dist", "README.md"]));
      expect(pkg.exports).toMatchObject({ ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } });
      expect(pkg.engines).toEqual({ node: ">=22.18.0" });
    },
  );

  it("type-checks imports of every package by name from outside the workspace", { timeout: 120_000 }, async () => {
    const tsc = join(repo, "node_modules", ".bin", "tsc");
    await expect(run(tsc, ["-p", join(scratch, "consumer", "tsconfig.json")])).resolves.toBeDefined();
  });

  it("imports and runs every package by name from outside the workspace", { timeout: 120_000 }, async () => {
    const { stdout } = await run(process.execPath, [join(scratch, "consumer", "check.ts")]);
    expect(JSON.parse(stdout)).toEqual({ loaded: manifests.length, frozen: true });
  });

  it("installs a working evalgate binary", async () => {
    const { stdout } = await run(join(scratch, "consumer", "node_modules", ".bin", "evalgate"), ["--version"]);
    expect(stdout.trim()).toBe("0.1.0");
  });

  it.each(manifests.map((manifest) => [manifest.name] as const))(
    "%s's tarball: LICENSE, no test helpers or fixtures, exports and source maps that resolve inside it",
    async (name) => {
      const tarball = tarballs.get(name)!;
      const files = (await run("tar", ["-tzf", tarball])).stdout.trim().split("\n");
      const unpacked = mkdtempSync(join(scratch, "unpacked-"));
      await run("tar", ["-xzf", tarball, "-C", unpacked]);
      const read = async (path: string) => readFileSync(join(unpacked, "package", path), "utf8");
      expect(await read("LICENSE")).toBe(readFileSync(join(repo, "LICENSE"), "utf8"));
      expect(
        files.filter((file) =>
          /\.test\.|\.test-helpers\.|__fixtures__|\.d\.ts\.map$|tsbuildinfo|^package\/src\//.test(file),
        ),
      ).toEqual([]);
      const pkg = JSON.parse(await read("package.json")) as {
        exports: Record<string, unknown>;
        repository?: unknown;
        dependencies?: Record<string, string>;
      };
      expect(JSON.stringify(pkg)).not.toMatch(/workspace:|@eval\/source|example\.invalid/);
      expect(pkg.repository).toBeUndefined();
      for (const [subpath, target] of Object.entries(pkg.exports)) {
        if (typeof target === "string") {
          if (!target.includes("*")) expect(files, subpath).toContain(`package/${target.slice(2)}`);
          continue;
        }
        expect(Object.keys(target as object), subpath).toEqual(["types", "import", "default"]);
        for (const path of Object.values(target as Record<string, string>))
          expect(files, `${subpath} ${path}`).toContain(`package/${path.slice(2)}`);
      }
      for (const map of files.filter((file) => file.endsWith(".js.map"))) {
        const parsed = JSON.parse(await read(map.slice("package/".length))) as {
          sources: string[];
          sourcesContent?: Array<string | null>;
        };
        expect(parsed.sourcesContent?.length, map).toBe(parsed.sources.length);
        expect(
          parsed.sourcesContent?.every((content) => typeof content === "string" && content.length > 0),
          map,
        ).toBe(true);
      }
    },
  );

  it("every published package's LICENSE is the repository's", () => {
    for (const manifest of manifests)
      expect(readFileSync(join(manifest.dir, "LICENSE"), "utf8"), manifest.name).toBe(
        readFileSync(join(repo, "LICENSE"), "utf8"),
      );
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
