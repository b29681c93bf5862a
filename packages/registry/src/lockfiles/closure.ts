import { readFileSync } from "node:fs";
import { join, matchesGlob } from "node:path";
/** One edge of a dependency graph: a name and what asks for it (a version, a range or a lockfile path). */
export type Wanted = readonly [name: string, spec: string];

export interface Graph<N> {
  /** The node `wanted` resolves to from `from` (null from the importer), "skip" for a workspace link, null when absent. */
  resolve(from: N | null, wanted: Wanted): N | "skip" | null;
  /** A stable identity of the node (two paths to one package give one key). */
  key(node: N): string;
  /** What the node itself depends on. */
  children(node: N): readonly Wanted[];
  /** The node's line in the closure: `name@version <integrity>`. */
  line(node: N): string;
}

/** The entries of the dependency maps that exist on `entry` (for example dependencies, optionalDependencies). */
export function wantedFrom(entry: unknown, groups: readonly string[]): Wanted[] {
  const wanted: Wanted[] = [];
  if (entry === null || typeof entry !== "object") return wanted;
  for (const group of groups) {
    const map = (entry as Record<string, unknown>)[group];
    if (map === null || typeof map !== "object") continue;
    for (const [name, spec] of Object.entries(map)) if (typeof spec === "string") wanted.push([name, spec]);
  }
  return wanted;
}

/** Dependency maps an importer (the package the rubric is part of) can load from: its devDependencies too. */
export const IMPORTER_GROUPS = ["dependencies", "devDependencies", "optionalDependencies"] as const;
/** Dependency maps of an installed package. */
export const PACKAGE_GROUPS = ["dependencies", "optionalDependencies"] as const;

/**
 * The closure reachable from `roots`, one sorted line per package. A dependency the graph cannot
 * resolve still gives a line (`name@spec unresolved`), so a change in what is asked for changes the result.
 */
export function walkClosure<N>(graph: Graph<N>, roots: readonly Wanted[]): string[] {
  const lines = new Set<string>();
  const seen = new Set<string>();
  const pending: { from: N | null; wanted: Wanted }[] = roots.map((wanted) => ({ from: null, wanted }));
  while (pending.length > 0) {
    const { from, wanted } = pending.pop()!;
    const node = graph.resolve(from, wanted);
    if (node === "skip") continue;
    if (node === null) {
      lines.add(`${wanted[0]}@${wanted[1]} unresolved`);
      continue;
    }
    const key = graph.key(node);
    if (seen.has(key)) continue;
    seen.add(key);
    lines.add(graph.line(node));
    for (const child of graph.children(node)) pending.push({ from: node, wanted: child });
  }
  return [...lines].sort();
}

/** Whether `importer` matches the root package.json's `workspaces` (an array of globs, or `{ packages }`). */
export function isWorkspace(rootManifest: unknown, importer: string): boolean {
  const field = (rootManifest as { workspaces?: unknown } | null)?.workspaces;
  const patterns = Array.isArray(field) ? field : (field as { packages?: unknown } | undefined)?.packages;
  if (!Array.isArray(patterns)) return false;
  return patterns.some((pattern) => typeof pattern === "string" && matchesGlob(importer, pattern.replace(/^\.\//, "")));
}

/** The parsed `package.json` in `dir`, or null where it is absent or does not parse (its files still count). */
export function readManifest(dir: string): unknown {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as unknown;
  } catch {
    return null;
  }
}
