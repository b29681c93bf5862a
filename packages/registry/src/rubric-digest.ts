import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { parse } from "yaml";
import { blake3Digest } from "@eval/hashing";
import { digestDirectory } from "./digest.ts";

/** Bench files that do not decide a score: cases (digested per case), tests, docs, installed modules. */
export function isOutsideRubric(relativePath: string): boolean {
  const top = relativePath.split("/")[0]!;
  return top === "cases" || top === "node_modules" || top === "tests" || relativePath.endsWith(".md") || relativePath.endsWith(".test.ts");
}

interface LockDependency {
  readonly version: string;
}
interface PnpmLock {
  readonly importers?: Record<string, { dependencies?: Record<string, LockDependency>; optionalDependencies?: Record<string, LockDependency> }>;
  readonly packages?: Record<string, { resolution?: { integrity?: string } }>;
  readonly snapshots?: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;
}

/** The nearest pnpm-lock.yaml at or above `dir`, or null. */
function findLockfile(dir: string): string | null {
  for (let current = dir; ; current = dirname(current)) {
    const candidate = join(current, "pnpm-lock.yaml");
    if (existsSync(candidate)) return candidate;
    if (dirname(current) === current) return null;
  }
}

const parsedLockfiles = new Map<string, { readonly stamp: string; readonly lock: PnpmLock }>();

/** Parses pnpm-lock.yaml once per process while its size and mtime stay the same (benches share it). */
function readLockfile(path: string): PnpmLock {
  const stat = statSync(path);
  const stamp = `${stat.size}:${stat.mtimeMs}`;
  const cached = parsedLockfiles.get(path);
  if (cached?.stamp === stamp) return cached.lock;
  const lock = (parse(readFileSync(path, "utf8")) ?? {}) as PnpmLock;
  parsedLockfiles.set(path, { stamp, lock });
  return lock;
}

/**
 * The bench package's third-party dependency closure from pnpm-lock.yaml: one line per resolved
 * package (`name@version integrity`), sorted. Workspace links (`link:`) are left out: their code is
 * versioned with evalgate itself (the harness version is part of every cache key).
 */
export function lockedDependencyClosure(benchPath: string): string {
  const lockfile = findLockfile(benchPath);
  if (lockfile === null) return "";
  const lock = readLockfile(lockfile);
  const importer = lock.importers?.[relative(dirname(lockfile), benchPath).split(sep).join("/")];
  if (importer === undefined) return "";
  const pending: string[] = [];
  for (const group of [importer.dependencies, importer.optionalDependencies]) {
    for (const [name, { version }] of Object.entries(group ?? {})) if (!version.startsWith("link:")) pending.push(`${name}@${version}`);
  }
  const seen = new Set<string>();
  while (pending.length > 0) {
    const key = pending.pop()!;
    if (seen.has(key)) continue;
    seen.add(key);
    const snapshot = lock.snapshots?.[key];
    for (const group of [snapshot?.dependencies, snapshot?.optionalDependencies]) {
      for (const [name, version] of Object.entries(group ?? {})) if (!version.startsWith("link:")) pending.push(`${name}@${version}`);
    }
  }
  return [...seen]
    .sort()
    .map((key) => {
      const base = key.replace(/\(.*$/, "");
      return `${key} ${lock.packages?.[base]?.resolution?.integrity ?? "no-integrity"}`;
    })
    .join("\n");
}

const RUBRIC_TAG = Buffer.from("evalgate.rubric.v1\0", "utf8");

/**
 * `blake3:<hex>` = BLAKE3("evalgate.rubric.v1\0" ‖ tree digest ‖ "\n" ‖ dependency closure), where the
 * tree digest is the case-tree serialization of the bench directory without cases/, tests/,
 * node_modules/, *.md and *.test.ts (so registration.ts, rubric.ts and every module it imports,
 * breakdown-keys.ts, failure_modes.yaml and package.json count), and the closure is
 * `lockedDependencyClosure`.
 */
export async function computeRubricDigest(benchPath: string): Promise<string> {
  const tree = await digestDirectory(benchPath, { exclude: isOutsideRubric });
  return blake3Digest(RUBRIC_TAG, Buffer.from(tree.digest, "utf8"), Buffer.from("\n"), Buffer.from(lockedDependencyClosure(benchPath), "utf8"));
}
