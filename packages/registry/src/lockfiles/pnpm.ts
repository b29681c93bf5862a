import { yamlPackage } from "../yaml-package.ts";
import { IMPORTER_GROUPS, PACKAGE_GROUPS, walkClosure, type Graph, type Wanted } from "./closure.ts";

interface PnpmLock {
  readonly importers?: Record<string, Record<string, Record<string, { version?: string }> | undefined>>;
  readonly packages?: Record<
    string,
    { resolution?: { integrity?: string; tarball?: string } } & Record<string, unknown>
  >;
  readonly snapshots?: Record<string, Record<string, unknown>>;
}

export function parsePnpmLock(text: string): PnpmLock {
  return (yamlPackage().parse(text) ?? {}) as PnpmLock;
}

/** A locked version: `7.8.6`, `7.8.6(peer@1.0.0)`, an alias `real@1.0.0`, or a workspace `link:...`. */
function snapshotKey(name: string, version: string): string {
  return version.lastIndexOf("@") > 0 ? version : `${name}@${version}`;
}

/**
 * pnpm-lock.yaml (v6 and v9): the importer's locked dependencies and every snapshot they reach, one line
 * per package (`name@version integrity`). Workspace links (`link:`) are left out: their code is the
 * repository's own. Null when the lockfile has no such importer.
 */
export function pnpmClosure(lock: PnpmLock, importer: string): string[] | null {
  const entry = lock.importers?.[importer === "" ? "." : importer];
  if (entry === undefined) return null;
  const roots: Wanted[] = [];
  for (const group of IMPORTER_GROUPS) {
    for (const [name, dependency] of Object.entries(entry[group] ?? {}))
      if (dependency.version !== undefined) roots.push([name, dependency.version]);
  }
  const lookup = (key: string) => lock.snapshots?.[key] ?? lock.packages?.[key] ?? lock.packages?.[`/${key}`];
  const graph: Graph<string> = {
    resolve: (_from, [name, version]) => {
      if (version.startsWith("link:")) return "skip";
      const key = snapshotKey(name, version);
      return lookup(key) === undefined ? null : key;
    },
    key: (node) => node,
    children: (node) => {
      const snapshot = lookup(node) as Record<string, Record<string, unknown>> | undefined;
      return PACKAGE_GROUPS.flatMap((group) =>
        Object.entries(snapshot?.[group] ?? {}).filter((pair): pair is [string, string] => typeof pair[1] === "string"),
      );
    },
    line: (node) => {
      const base = node.replace(/\(.*$/, "");
      const resolution = (lock.packages?.[base] ?? lock.packages?.[`/${base}`])?.resolution;
      return `${node} ${resolution?.integrity ?? resolution?.tarball ?? "no-integrity"}`;
    },
  };
  return walkClosure(graph, roots);
}
