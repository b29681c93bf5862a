import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { computeRubricDigest } from "../rubric-digest.ts";
import { lockedDependencyClosure } from "./dependency-closure.ts";

const FIXTURES = join(import.meta.dirname, "..", "__fixtures__", "lockfiles");
const KINDS = {
  npm: "package-lock.json",
  "npm-shrinkwrap": "npm-shrinkwrap.json",
  "yarn-classic": "yarn.lock",
  "yarn-berry": "yarn.lock",
  pnpm: "pnpm-lock.yaml",
  bun: "bun.lock",
  "bun-binary": "bun.lockb",
} as const;

/** The fixture project with one lockfile state (a, b or c; __fixtures__/lockfiles/README.md). */
function project(kind: keyof typeof KINDS, state: "a" | "b" | "c"): { root: string; bench: string } {
  const root = mkdtempSync(join(tmpdir(), `evalgate-lock-${kind}-`));
  cpSync(join(FIXTURES, "project"), root, { recursive: true });
  cpSync(join(FIXTURES, kind, state, KINDS[kind]), join(root, KINDS[kind]));
  return { root, bench: join(root, "bench", "upper") };
}

describe("the rubric's dependency closure from every lockfile kind", () => {
  it.each(Object.keys(KINDS).filter((kind) => kind !== "bun-binary") as (keyof typeof KINDS)[])(
    "%s: the bench's locked closure, nothing of the root's",
    (kind) => {
      const before = lockedDependencyClosure(project(kind, "a").bench);
      expect(before).toMatch(/semver@7\.5\.0 /);
      expect(before).toMatch(/lru-cache@6\.0\.0 /);
      expect(before).toMatch(/yallist@4\.0\.0 /);
      expect(before).not.toMatch(/\bms@/);
      expect(before).not.toMatch(/unresolved|no-integrity/);
      expect(before.split("\n")).toHaveLength(3);
      const bumped = lockedDependencyClosure(project(kind, "b").bench);
      expect(bumped).toMatch(/semver@7\.8\.6 /);
      expect(bumped.split("\n")).toHaveLength(1);
      // The root's own dependency moved (ms 2.1.2 -> 2.1.3): the bench's closure did not.
      expect(lockedDependencyClosure(project(kind, "c").bench)).toBe(before);
    },
  );

  it.each(Object.keys(KINDS) as (keyof typeof KINDS)[])(
    "%s: a bumped dependency changes the rubric digest",
    async (kind) => {
      const before = await computeRubricDigest(project(kind, "a").bench);
      expect(await computeRubricDigest(project(kind, "a").bench)).toBe(before);
      expect(await computeRubricDigest(project(kind, "b").bench)).not.toBe(before);
    },
  );

  it("bun.lockb is binary: it counts whole, so any change to it counts", () => {
    const [a, c] = [
      lockedDependencyClosure(project("bun-binary", "a").bench),
      lockedDependencyClosure(project("bun-binary", "c").bench),
    ];
    expect(a).toMatch(/^bun\.lockb blake3:[0-9a-f]{64}$/);
    expect(c).not.toBe(a);
  });

  it("a lockfile that does not list the bench's package, or does not parse, counts whole", () => {
    const { root, bench } = project("npm", "a");
    writeFileSync(join(bench, "package.json"), JSON.stringify({ name: "elsewhere" }));
    cpSync(join(FIXTURES, "project", "package.json"), join(root, "outside", "package.json"));
    expect(lockedDependencyClosure(join(root, "outside"))).toMatch(/^package-lock\.json blake3:[0-9a-f]{64}$/);
    writeFileSync(join(root, "package-lock.json"), "{ not json");
    expect(lockedDependencyClosure(bench)).toMatch(/^package-lock\.json blake3:/);
  });

  it.each(["yarn-classic", "yarn-berry"] as const)(
    "%s: a bench package that is no workspace (a plain project's bench/<slug>) counts the lockfile whole",
    (kind) => {
      // Its rubric loads the project's packages, which its own package.json does not name: a bump of any
      // of them (here only the root's ms) must move the closure.
      const outside = (state: "a" | "c") => {
        const { root } = project(kind, state);
        cpSync(join(root, "bench", "upper"), join(root, "tools", "upper"), { recursive: true });
        return lockedDependencyClosure(join(root, "tools", "upper"));
      };
      expect(outside("a")).toMatch(/^yarn\.lock blake3:[0-9a-f]{64}$/);
      expect(outside("c")).not.toBe(outside("a"));
    },
  );

  it("yarn classic: workspaces given as { packages } count as workspaces; none at all makes the lockfile count whole", () => {
    const { root, bench } = project("yarn-classic", "a");
    const listed = lockedDependencyClosure(bench);
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(
      join(root, "package.json"),
      JSON.stringify({ ...manifest, workspaces: { packages: ["./bench/*", 7] } }),
    );
    expect(lockedDependencyClosure(bench)).toBe(listed);
    writeFileSync(join(root, "package.json"), JSON.stringify({ ...manifest, workspaces: undefined }));
    expect(lockedDependencyClosure(bench)).toMatch(/^yarn\.lock blake3:[0-9a-f]{64}$/);
  });

  it("several lockfiles in one directory all count", () => {
    const { root, bench } = project("npm", "a");
    cpSync(join(FIXTURES, "yarn-berry", "b", "yarn.lock"), join(root, "yarn.lock"));
    const closure = lockedDependencyClosure(bench);
    expect(closure).toMatch(/semver@7\.5\.0 sha512-/);
    expect(closure).toMatch(/semver@7\.8\.6 10c0\//);
  });
});

describe("without a lockfile: the installed packages' files", () => {
  it("follows node_modules from the bench's package and digests each package's files", () => {
    const { root, bench } = project("npm", "a");
    const install = (dir: string, name: string, version: string, dependencies: Record<string, string> = {}) => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version, dependencies }));
      writeFileSync(join(dir, "index.js"), `export default "${name}";\n`);
    };
    const noLock = join(root, "..", `${root.split("/").pop()}-nolock`);
    cpSync(join(FIXTURES, "project"), noLock, { recursive: true });
    install(join(noLock, "node_modules", "semver"), "semver", "7.5.0", { "lru-cache": "^6.0.0" });
    install(join(noLock, "node_modules", "lru-cache"), "lru-cache", "6.0.0");
    install(join(noLock, "node_modules", "ms"), "ms", "2.1.2");
    const benchNoLock = join(noLock, "bench", "upper");
    const before = lockedDependencyClosure(benchNoLock);
    expect(before).toMatch(/^lru-cache@6\.0\.0 blake3:[0-9a-f]{64}\nsemver@7\.5\.0 blake3:[0-9a-f]{64}$/);
    // Same version, different code: the closure moves.
    writeFileSync(join(noLock, "node_modules", "lru-cache", "index.js"), "export default 'patched';\n");
    expect(lockedDependencyClosure(benchNoLock)).not.toBe(before);
    expect(bench).not.toBe(benchNoLock);
  });

  it("counts what the manifests above the bench's own declare: a scaffolded bench package with no dependencies", () => {
    const dir = mkdtempSync(join(tmpdir(), "evalgate-lock-above-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", devDependencies: { leven: "^3.0.0" } }));
    mkdirSync(join(dir, "node_modules", "leven"), { recursive: true });
    writeFileSync(
      join(dir, "node_modules", "leven", "package.json"),
      JSON.stringify({ name: "leven", version: "3.0.0" }),
    );
    writeFileSync(join(dir, "node_modules", "leven", "index.js"), "module.exports = () => 0;\n");
    const bench = join(dir, "bench", "demo");
    mkdirSync(bench, { recursive: true });
    writeFileSync(join(bench, "package.json"), JSON.stringify({ name: "demo-bench", private: true }));
    const before = lockedDependencyClosure(bench);
    expect(before).toMatch(/^leven@3\.0\.0 blake3:[0-9a-f]{64}$/);
    writeFileSync(join(dir, "node_modules", "leven", "index.js"), "module.exports = () => 1;\n");
    expect(lockedDependencyClosure(bench)).not.toBe(before);
  });

  it("names a dependency that is not installed", () => {
    const dir = mkdtempSync(join(tmpdir(), "evalgate-lock-none-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x", devDependencies: { semver: "^7.5.0" } }));
    expect(lockedDependencyClosure(dir)).toBe("semver@^7.5.0 unresolved");
  });
});

describe("without a lockfile, workspace links", () => {
  it("are left out: a dependency linked to a directory outside node_modules is the repository's own code", async () => {
    const { symlinkSync } = await import("node:fs");
    const dir = mkdtempSync(join(tmpdir(), "evalgate-lock-link-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x", dependencies: { local: "workspace:^" } }));
    mkdirSync(join(dir, "packages", "local"), { recursive: true });
    writeFileSync(join(dir, "packages", "local", "package.json"), JSON.stringify({ name: "local", version: "1.0.0" }));
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(join(dir, "packages", "local"), join(dir, "node_modules", "local"));
    expect(lockedDependencyClosure(dir)).toBe("");
  });
});
