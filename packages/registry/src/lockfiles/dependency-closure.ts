import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { blake3Digest } from "@eval/hashing";
import { bunClosure, parseBunLock } from "./bun.ts";
import { readManifest } from "./closure.ts";
import { installedClosure } from "./installed.ts";
import { npmClosure, parseNpmLock } from "./npm.ts";
import { parsePnpmLock, pnpmClosure } from "./pnpm.ts";
import { parseYarnLock, yarnClosure } from "./yarn.ts";

/** The parsed package.json of the importer and of the lockfile's directory (null where absent or unreadable). */
interface Manifests {
  readonly importer: unknown;
  readonly root: unknown;
}
/** Reads one lockfile's closure for `importer` (a POSIX path from the lockfile's directory); null: unknown importer. */
type ClosureReader = (path: string, importer: string, manifests: Manifests) => string[] | null;

const parsed = new Map<string, { readonly stamp: string; readonly value: unknown }>();

/** Parses a lockfile once per process while its size and mtime stay the same (benches share one). */
function cachedParse<T>(path: string, parse: (text: string) => T): T {
  const stat = statSync(path);
  const stamp = `${stat.size}:${stat.mtimeMs}`;
  const hit = parsed.get(path);
  if (hit?.stamp === stamp) return hit.value as T;
  const value = parse(readFileSync(path, "utf8"));
  parsed.set(path, { stamp, value });
  return value;
}

/** Every lockfile evalgate reads, by file name. bun.lockb is binary: it is digested whole (null reader). */
const LOCKFILES: Readonly<Record<string, ClosureReader | null>> = {
  "pnpm-lock.yaml": (path, importer) => pnpmClosure(cachedParse(path, parsePnpmLock), importer),
  "package-lock.json": (path, importer) => npmClosure(cachedParse(path, parseNpmLock), importer),
  "npm-shrinkwrap.json": (path, importer) => npmClosure(cachedParse(path, parseNpmLock), importer),
  "yarn.lock": (path, importer, manifests) =>
    yarnClosure(cachedParse(path, parseYarnLock), importer, manifests.importer, manifests.root),
  "bun.lock": (path, importer) => bunClosure(cachedParse(path, parseBunLock), importer),
  "bun.lockb": null,
};

function nearest(start: string, holds: (dir: string) => boolean): string | null {
  for (let dir = start; ; dir = dirname(dir)) {
    if (holds(dir)) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** One lockfile's lines: its closure for the importer, or the whole file's digest when it cannot say. */
function lockfileLines(path: string, reader: ClosureReader | null, importer: string, manifests: Manifests): string[] {
  try {
    const lines = reader?.(path, importer, manifests);
    if (lines !== null && lines !== undefined) return lines;
  } catch {
    // A lockfile that does not parse still decides what gets installed: it counts whole.
  }
  const name = path.slice(path.lastIndexOf(sep) + 1);
  return [`${name} ${blake3Digest(readFileSync(path))}`];
}

/**
 * The third-party dependency closure a bench's rubric can load, one sorted line per package. The
 * importer is the nearest package.json at or above the bench; its dependencies are read from every
 * lockfile in the nearest directory at or above it that has one (pnpm-lock.yaml, package-lock.json,
 * npm-shrinkwrap.json, yarn.lock classic or berry, bun.lock, bun.lockb), or, with no lockfile at all,
 * from the installed packages' files. A lockfile that does not list the importer, does not parse, or is
 * binary counts whole. Workspace links are left out: their code is the repository's own.
 */
export function lockedDependencyClosure(benchPath: string): string {
  const packageDir = nearest(benchPath, (dir) => existsSync(join(dir, "package.json")));
  if (packageDir === null) return "";
  const lockDir = nearest(packageDir, (dir) => Object.keys(LOCKFILES).some((file) => existsSync(join(dir, file))));
  if (lockDir === null) return installedClosure(packageDir).join("\n");
  const importer = relative(lockDir, packageDir).split(sep).join("/");
  const manifests = { importer: readManifest(packageDir), root: readManifest(lockDir) };
  const lines = new Set<string>();
  for (const [file, reader] of Object.entries(LOCKFILES)) {
    const path = join(lockDir, file);
    if (existsSync(path)) for (const line of lockfileLines(path, reader, importer, manifests)) lines.add(line);
  }
  return [...lines].sort().join("\n");
}
