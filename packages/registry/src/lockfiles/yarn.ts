import { createRequire } from "node:module";
import {
  IMPORTER_GROUPS,
  isWorkspace,
  PACKAGE_GROUPS,
  walkClosure,
  wantedFrom,
  type Graph,
  type Wanted,
} from "./closure.ts";

// Loaded on first use: most runs read no yarn lockfile, and the parser is a CommonJS package with its own
// dependencies (loading it cost every run's start-up; docs/performance.md, run-warm).
const requireHere = createRequire(import.meta.url);
const parseSyml = (text: string): unknown =>
  (requireHere("@yarnpkg/parsers") as typeof import("@yarnpkg/parsers")).parseSyml(text);

interface YarnEntry {
  readonly version?: string;
  readonly resolution?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly checksum?: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
}
/** Each descriptor (`name@range`) to its entry, for classic (v1) and berry lockfiles alike. */
export interface YarnLock {
  readonly berry: boolean;
  readonly byDescriptor: ReadonlyMap<string, YarnEntry>;
}

export function parseYarnLock(text: string): YarnLock {
  const document = parseSyml(text) as Record<string, YarnEntry>;
  const byDescriptor = new Map<string, YarnEntry>();
  for (const [keys, entry] of Object.entries(document)) {
    if (keys === "__metadata") continue;
    for (const key of keys.split(",")) byDescriptor.set(key.trim(), entry);
  }
  return { berry: "__metadata" in document, byDescriptor };
}

const LOCAL = /^(workspace|link|portal|file):/;

/**
 * yarn.lock, classic and berry: the importer's dependencies (from berry's workspace entry, or from the
 * package.json for classic, which does not lock workspaces) resolved through their descriptors, one line
 * per package (`name@version checksum`, the resolved URL where classic has no integrity). Workspace, link,
 * portal and file dependencies are left out. Null when the importer is not the lockfile's own package nor
 * one of its workspaces (a bench directory with a package.json of its own inside a plain project): its
 * rubric then loads the project's packages, which its manifest does not name, so the lockfile counts whole.
 */
export function yarnClosure(
  lock: YarnLock,
  importer: string,
  manifest: unknown,
  rootManifest: unknown,
): string[] | null {
  let roots: Wanted[];
  if (lock.berry) {
    const workspace = [...lock.byDescriptor.entries()].find(([key]) =>
      key.endsWith(`@workspace:${importer === "" ? "." : importer}`),
    )?.[1];
    if (workspace === undefined) return null;
    roots = wantedFrom(workspace, IMPORTER_GROUPS);
  } else {
    if (importer !== "" && !isWorkspace(rootManifest, importer)) return null;
    roots = wantedFrom(manifest, IMPORTER_GROUPS);
  }
  const graph: Graph<{ name: string; entry: YarnEntry }> = {
    resolve: (_from, [name, range]) => {
      if (LOCAL.test(range)) return "skip";
      const entry =
        lock.byDescriptor.get(`${name}@${range}`) ??
        (lock.berry ? lock.byDescriptor.get(`${name}@npm:${range}`) : undefined);
      return entry === undefined ? null : { name, entry };
    },
    key: ({ name, entry }) => entry.resolution ?? `${name}@${entry.version ?? ""}#${entry.resolved ?? ""}`,
    children: ({ entry }) => wantedFrom(entry, PACKAGE_GROUPS),
    line: ({ name, entry }) =>
      `${name}@${entry.version ?? "no-version"} ${entry.checksum ?? entry.integrity ?? entry.resolved ?? "no-integrity"}`,
  };
  return walkClosure(graph, roots);
}
