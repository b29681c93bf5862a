// Proves the linter (oxlint, .oxlintrc.json) and the dead-code check (knip, knip.config.ts) bite: each
// is run on planted violations and must fail naming them, and on the tree, which must pass. A JS plugin
// that fails to load, or a config glob that matches nothing, would otherwise pass everything silently.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = join(import.meta.dirname, "..");
const bin = (name: string): string => join(repo, "node_modules", ".bin", name);

async function check(command: string, args: readonly string[], cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, output: failure.stdout + failure.stderr };
  }
}

function plant(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

const SKIP = /(^|\/)(dist|coverage|\.git|\.toolchain|\.evalgate)(\/|$)/;

/** The repo without build output, its root node_modules linked (package-level ones are relative links). */
function copyRepo(): string {
  const target = mkdtempSync(join(tmpdir(), "evalgate-lint-"));
  cpSync(repo, target, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (source) => {
      const rel = relative(repo, source);
      return rel === "" || (rel !== "node_modules" && !SKIP.test(rel));
    },
  });
  symlinkSync(join(repo, "node_modules"), join(target, "node_modules"));
  return target;
}

describe("oxlint", () => {
  let planted: string;
  let result: { code: number; output: string };

  beforeAll(async () => {
    planted = mkdtempSync(join(tmpdir(), "evalgate-oxlint-"));
    cpSync(join(repo, ".oxlintrc.json"), join(planted, ".oxlintrc.json"));
    cpSync(join(repo, "scripts", "lint"), join(planted, "scripts", "lint"), { recursive: true });
    plant(
      planted,
      "packages/demo/src/index.ts",
      'export { a } from "./a.ts";\nexport * from "./b.ts";\nexport const local = 1;\n',
    );
    plant(planted, "packages/demo/src/a.ts", "export const a = 1;\nexport default a;\n");
    plant(planted, "packages/demo/src/b.ts", "export const b = {\n  key: 1,\n  key: 2,\n};\n");
    plant(planted, "packages/demo/src/fine.ts", "export function fine(x: number): number {\n  return x + 1;\n}\n");
    result = await check(bin("oxlint"), ["--format", "unix", "."], planted);
  }, 60_000);

  afterAll(() => rmSync(planted, { recursive: true, force: true }));

  it("fails on the planted violations", () => {
    expect(result.code).not.toBe(0);
  });

  it.each([
    ["a default export", "packages/demo/src/a.ts:2", "import(no-default-export)"],
    [
      "`export *` in an index file (the JS plugin ran)",
      "packages/demo/src/index.ts:2",
      "evalgate(index-named-reexports-only)",
    ],
    ["a declaration in an index file", "packages/demo/src/index.ts:3", "evalgate(index-named-reexports-only)"],
    ["a correctness bug (a duplicate object key)", "packages/demo/src/b.ts:2", "eslint(no-dupe-keys)"],
  ])("names %s", (_what, where, rule) => {
    expect(result.output).toMatch(
      new RegExp(`${where.replace(/[.*]/g, "\\$&")}:\\d+: .*\\[Error/${rule.replace(/[()]/g, "\\$&")}\\]`),
    );
  });

  it("leaves a clean file alone, and passes the repository's tree", async () => {
    expect(result.output).not.toContain("fine.ts");
    const tree = await check(bin("oxlint"), ["--deny-warnings", "."], repo);
    expect(tree, tree.output).toMatchObject({ code: 0 });
  });
});

describe("knip", () => {
  let planted: string;
  let result: { code: number; output: string };

  beforeAll(async () => {
    planted = copyRepo();
    plant(planted, "packages/errors/src/planted-orphan.ts", "export const orphan = 1;\n");
    writeFileSync(
      join(planted, "packages/errors/src/warning.ts"),
      `${readFileSync(join(repo, "packages/errors/src/warning.ts"), "utf8")}\nexport const plantedUnused = 1;\n`,
    );
    writeFileSync(
      join(planted, "packages/errors/src/index.ts"),
      `${readFileSync(join(repo, "packages/errors/src/index.ts"), "utf8")}export { plantedEntryOnly } from "./planted-entry.ts";\n`,
    );
    plant(planted, "packages/errors/src/planted-entry.ts", "export const plantedEntryOnly = 1;\n");
    const manifestPath = join(planted, "packages/errors/package.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { dependencies?: Record<string, string> };
    manifest.dependencies = { ...manifest.dependencies, yaml: "^2.9.1" };
    writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    result = await check(bin("knip"), ["--no-progress", "--no-config-hints"], planted);
  }, 120_000);

  afterAll(() => rmSync(planted, { recursive: true, force: true }));

  it("fails on the planted violations", () => {
    expect(result.code).not.toBe(0);
  });

  it.each([
    ["an unused file", /Unused files[\s\S]*packages\/errors\/src\/planted-orphan\.ts/],
    ["an unused export", /Unused exports[\s\S]*plantedUnused\s+packages\/errors\/src\/warning\.ts/],
    [
      "an index export no other package imports",
      /Unused exports[\s\S]*plantedEntryOnly\s+packages\/errors\/src\/index\.ts/,
    ],
    ["an unused dependency", /Unused dependencies[\s\S]*yaml\s+packages\/errors\/package\.json/],
  ])("names %s", (_what, pattern) => {
    expect(result.output).toMatch(pattern);
  });

  it("passes the repository's tree", async () => {
    const tree = await check(bin("knip"), ["--no-progress", "--no-config-hints"], repo);
    expect(tree, tree.output).toMatchObject({ code: 0 });
  });
});
