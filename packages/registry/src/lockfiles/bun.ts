import { createRequire } from "node:module";
import type { ParseError } from "jsonc-parser";
import { IMPORTER_GROUPS, PACKAGE_GROUPS, walkClosure, wantedFrom, type Graph } from "./closure.ts";

// Loaded on first use: most runs read no bun lockfile (loading the parser cost every run's start-up).
const requireHere = createRequire(import.meta.url);
const parse: typeof import("jsonc-parser").parse = (...args) =>
  (requireHere("jsonc-parser") as typeof import("jsonc-parser")).parse(...args);

/** A bun.lock package: [ident `name@version`, registry, info (dependencies ...), integrity]. */
type BunPackage = readonly [string, string?, Record<string, unknown>?, string?];
interface BunLock {
  readonly workspaces?: Record<string, { name?: string } & Record<string, unknown>>;
  readonly packages?: Record<string, BunPackage>;
}

/** bun.lock is JSON with trailing commas. */
export function parseBunLock(text: string): BunLock {
  const errors: ParseError[] = [];
  const lock = parse(text, errors, { allowTrailingComma: true }) as BunLock;
  if (errors.length > 0)
    throw new SyntaxError(`bun.lock is not valid JSONC (error ${errors[0]!.error} at offset ${errors[0]!.offset})`);
  return lock;
}

/** Where bun keeps `name` as seen from the package at `key`: nested under it, under its parents, then hoisted. */
function candidates(from: string | null, name: string, workspaceName: string | undefined): string[] {
  if (from === null) return workspaceName === undefined ? [name] : [`${workspaceName}/${name}`, name];
  const found: string[] = [];
  for (let prefix = from; prefix !== ""; prefix = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "")
    found.push(`${prefix}/${name}`);
  found.push(name);
  return found;
}

/**
 * bun.lock (text): the importer's workspace dependencies and what they reach, one line per package
 * (`name@version integrity`). Workspace packages are left out. Null when the lockfile has no such workspace.
 */
export function bunClosure(lock: BunLock, importer: string): string[] | null {
  const workspace = lock.workspaces?.[importer];
  const packages = lock.packages ?? {};
  if (workspace === undefined) return null;
  const graph: Graph<string> = {
    resolve: (from, [name]) => {
      for (const key of candidates(from, name, workspace.name)) {
        const entry = packages[key];
        if (entry !== undefined) return /@(workspace|link):/.test(entry[0]) ? "skip" : key;
      }
      return null;
    },
    key: (key) => key,
    children: (key) => wantedFrom(packages[key]![2], PACKAGE_GROUPS),
    line: (key) => {
      const entry = packages[key]!;
      return `${entry[0]} ${entry[3] ?? entry[1] ?? "no-integrity"}`;
    },
  };
  return walkClosure(graph, wantedFrom(workspace, IMPORTER_GROUPS));
}
