import { IMPORTER_GROUPS, PACKAGE_GROUPS, walkClosure, wantedFrom, type Graph } from "./closure.ts";

interface NpmEntry {
  readonly version?: string;
  readonly integrity?: string;
  readonly resolved?: string;
  readonly link?: boolean;
  readonly name?: string;
}
interface NpmLock {
  readonly packages?: Record<string, NpmEntry>;
}

export function parseNpmLock(text: string): NpmLock {
  return JSON.parse(text) as NpmLock;
}

/** Where Node looks for `name` from the package at `location`: its node_modules, then each parent's. */
function candidates(location: string, name: string): string[] {
  const found: string[] = [];
  const parts = location === "" ? [] : location.split("/");
  for (let end = parts.length; end >= 0; end--) {
    const prefix = parts.slice(0, end).join("/");
    if (prefix.endsWith("/node_modules") || parts[end - 1] === "node_modules") continue;
    found.push(prefix === "" ? `node_modules/${name}` : `${prefix}/node_modules/${name}`);
  }
  return found;
}

/**
 * package-lock.json / npm-shrinkwrap.json (lockfile v2 and v3, whose `packages` map is keyed by install
 * location): the importer's dependencies resolved the way Node resolves them, and theirs in turn.
 * Workspace links are left out. Null when the lockfile has no entry for the importer (v1 lockfiles too).
 */
export function npmClosure(lock: NpmLock, importer: string): string[] | null {
  const packages = lock.packages;
  const root = packages?.[importer];
  if (packages === undefined || root === undefined) return null;
  const graph: Graph<string> = {
    resolve: (from, [name]) => {
      for (const location of candidates(from ?? importer, name)) {
        const entry = packages[location];
        if (entry !== undefined) return entry.link === true ? "skip" : location;
      }
      return null;
    },
    key: (location) => location,
    children: (location) => wantedFrom(packages[location], PACKAGE_GROUPS),
    line: (location) => {
      const entry = packages[location]!;
      const name = entry.name ?? location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length);
      return `${name}@${entry.version ?? "no-version"} ${entry.integrity ?? entry.resolved ?? "no-integrity"}`;
    },
  };
  return walkClosure(graph, wantedFrom(root, IMPORTER_GROUPS));
}
