import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { blake3Digest } from "@eval/hashing";
import { digestDirectorySync } from "../digest.ts";
import {
  IMPORTER_GROUPS,
  isWorkspace,
  PACKAGE_GROUPS,
  readManifest,
  walkClosure,
  wantedFrom,
  type Graph,
  type Wanted,
} from "./closure.ts";

interface Installed {
  readonly dir: string;
  readonly manifest: { readonly name?: string; readonly version?: string };
}

/** A package.json that does not parse names nothing (its files still count). */
function installedManifest(dir: string): Installed["manifest"] {
  return (readManifest(dir) ?? {}) as Installed["manifest"];
}

/** The package directory Node would load `name` from, starting at `from` (its real path). */
function resolveInstalled(from: string, name: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return null;
  }
}

/** The package's files without its own node_modules; when they hold a symlink, its package.json alone. */
function contentDigest(dir: string): string {
  try {
    return digestDirectorySync(dir, { exclude: (path) => path === "node_modules" || path.startsWith("node_modules/") })
      .digest;
  } catch {
    return blake3Digest(readFileSync(join(dir, "package.json")));
  }
}

/**
 * Without any lockfile: the installed dependency closure of the package in `packageDir` (and of the
 * manifests above it), found the way
 * Node finds it, one line per package (`name@version <digest of its files>`), so a dependency changed on
 * disk changes the result whatever its version says. Links to directories outside any node_modules
 * (workspace packages) are left out, as the lockfile readers leave out `link:` and `workspace:`.
 */
export function installedClosure(packageDir: string): string[] {
  const graph: Graph<Installed> = {
    resolve: (from, [name]) => {
      const dir = resolveInstalled(from?.dir ?? packageDir, name);
      if (dir === null) return null;
      // A link to a directory outside any node_modules is a workspace package: the repository's own code.
      return dir.split(sep).includes("node_modules") ? { dir, manifest: installedManifest(dir) } : "skip";
    },
    key: (node) => node.dir,
    children: (node) => wantedFrom(node.manifest, PACKAGE_GROUPS),
    line: (node) =>
      `${node.manifest.name ?? "no-name"}@${node.manifest.version ?? "no-version"} ${contentDigest(node.dir)}`,
  };
  return walkClosure(graph, declaredAtOrAbove(packageDir));
}

/**
 * What the package.json files at and above `packageDir` declare, up to the first that lists it as a
 * workspace (whose own manifest then speaks for it, as the lockfile readers decide): Node resolves a
 * rubric's imports through every node_modules above it, so a bench package that declares nothing and is
 * no workspace (as `init` scaffolds it in a plain project) still loads what the project's manifest installed.
 */
function declaredAtOrAbove(packageDir: string): Wanted[] {
  const wanted = wantedFrom(readManifest(packageDir), IMPORTER_GROUPS);
  for (let dir = dirname(packageDir); dirname(dir) !== dir; dir = dirname(dir)) {
    if (!existsSync(join(dir, "package.json"))) continue;
    const manifest = readManifest(dir);
    if (isWorkspace(manifest, relative(dir, packageDir).split(sep).join("/"))) break;
    wanted.push(...wantedFrom(manifest, IMPORTER_GROUPS));
  }
  return wanted;
}
