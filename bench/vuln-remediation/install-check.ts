// Does the workspace's lockfile install what the registry serves, and does the installed tree run? Three
// checks against the registry snapshot (registry-snapshot.ts), none trusting the lockfile's own claims:
//   registryProblems  every locked name@version exists, with the registry's integrity and tarball URL
//   treeProblems      every dependency of every locked package, from the package's real manifest, is
//                     satisfied by the tree (npm's nested lookup; overrides as npm applies them)
//   installAndSmoke   the tree installed from the snapshot's tarballs (integrity re-checked on the bytes),
//                     then the case's smoke check run against it
// Offline and in-process: reads the snapshot, writes only under the directory it is given.
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { gunzipSync } from "node:zlib";
import { parseTar } from "nanotar";
import {
  overriddenNames,
  resolveFrom,
  satisfiesLoose,
  type LockEntry,
  type Lockfile,
  type Manifest,
} from "./npm-project.ts";
import { isRegistryName, sriMatches, type RegistrySnapshot } from "./registry-snapshot.ts";
import semver from "semver";

export interface LockedPackage {
  readonly path: string;
  readonly name: string;
  readonly version: string;
  readonly entry: LockEntry;
}

const nameOfPath = (path: string): string => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);

/** A location npm writes: `node_modules/<name>` repeated, every name a registry name (so never `..`). */
export function isInstallPath(path: string): boolean {
  const parts = path.split("/");
  for (let i = 0; i < parts.length;) {
    if (parts[i] !== "node_modules" || parts[i + 1] === undefined) return false;
    const scoped = parts[i + 1]!.startsWith("@");
    const name = scoped ? `${parts[i + 1]}/${parts[i + 2] ?? ""}` : parts[i + 1]!;
    if (!isRegistryName(name)) return false;
    i += scoped ? 3 : 2;
  }
  return parts.length > 0;
}

/** Every installed (non-root, non-link) entry with a valid version; entries without one are lockfile_inconsistent's. */
export function lockedPackages(lock: Lockfile): LockedPackage[] {
  return Object.entries(lock.packages ?? {})
    .filter(
      ([path, entry]) =>
        path.includes("node_modules/") &&
        entry.link !== true &&
        typeof entry.version === "string" &&
        semver.valid(entry.version) !== null,
    )
    .map(([path, entry]) => ({
      path,
      name: typeof entry.name === "string" ? entry.name : nameOfPath(path),
      version: entry.version!,
      entry,
    }));
}

export interface RegistryFindings {
  readonly unknown: string[];
  readonly integrity: string[];
}

/** Locked packages the registry does not have, or whose integrity or tarball URL is not the registry's. */
export function registryProblems(lock: Lockfile, snapshot: RegistrySnapshot): RegistryFindings {
  const unknown: string[] = [];
  const integrity: string[] = [];
  for (const pkg of lockedPackages(lock)) {
    const label = `${pkg.path}@${pkg.version}`;
    if (!isInstallPath(pkg.path)) {
      unknown.push(`${JSON.stringify(pkg.path)} is not a node_modules path npm writes`);
      continue;
    }
    if (!isRegistryName(pkg.name)) {
      unknown.push(`${label}: "${pkg.name}" is not an npm package name`);
      continue;
    }
    const facts = snapshot.version(pkg.name, pkg.version);
    if (facts === null) {
      unknown.push(
        snapshot.packument(pkg.name) === null
          ? `${label}: the registry has no package ${pkg.name}`
          : `${label}: the registry has no ${pkg.name}@${pkg.version}`,
      );
      continue;
    }
    // A copy bundled inside its parent's tarball has no integrity of its own; only a real bundler may claim that.
    if (pkg.entry.inBundle === true && bundledBy(lock, pkg, snapshot)) continue;
    const claimed = typeof pkg.entry.integrity === "string" ? pkg.entry.integrity : null;
    if (claimed === null)
      integrity.push(`${label} has no integrity (the registry's is ${facts.dist.integrity.slice(0, 20)}...)`);
    else if (claimed !== facts.dist.integrity)
      integrity.push(
        `${label} has integrity ${claimed.slice(0, 20)}..., the registry's is ${facts.dist.integrity.slice(0, 20)}...`,
      );
    const resolved = pkg.entry.resolved;
    if (resolved !== undefined && resolved !== facts.dist.tarball)
      integrity.push(`${label} resolves to ${String(resolved)}, not the registry's ${facts.dist.tarball}`);
  }
  return { unknown, integrity };
}

function bundledBy(lock: Lockfile, pkg: LockedPackage, snapshot: RegistrySnapshot): boolean {
  const cut = pkg.path.lastIndexOf("/node_modules/");
  if (cut === -1) return false;
  const parent = lock.packages?.[pkg.path.slice(0, cut)];
  if (parent === undefined || typeof parent.version !== "string") return false;
  const bundled = snapshot.version(
    typeof parent.name === "string" ? parent.name : nameOfPath(pkg.path.slice(0, cut)),
    parent.version,
  )?.bundleDependencies;
  return bundled === true || (Array.isArray(bundled) && bundled.includes(pkg.name));
}

/**
 * Dependencies the tree does not satisfy, judged by each locked package's real manifest in the snapshot:
 * a required dependency (or non-optional peer) that npm's nested lookup does not find, or finds at a
 * version outside the declared range (unless an override tells npm to ignore that range).
 */
export function treeProblems(manifest: Manifest, lock: Lockfile, snapshot: RegistrySnapshot): string[] {
  const problems: string[] = [];
  const overridden = overriddenNames(manifest);
  for (const pkg of lockedPackages(lock)) {
    const facts = snapshot.version(pkg.name, pkg.version);
    if (facts === null) continue;
    const optionalPeers = new Set(
      Object.entries(facts.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional === true)
        .map(([name]) => name),
    );
    const required: Record<string, string> = {
      ...Object.fromEntries(Object.entries(facts.peerDependencies ?? {}).filter(([name]) => !optionalPeers.has(name))),
      ...facts.dependencies,
    };
    for (const [dep, range] of Object.entries(required)) {
      if (facts.optionalDependencies?.[dep] !== undefined) continue;
      const target = resolveFrom(lock, pkg.path, dep);
      const found = target === null ? undefined : lock.packages?.[target]?.version;
      if (typeof found !== "string") {
        problems.push(
          `${pkg.path}@${pkg.version} needs ${dep}@${range} (its published manifest), which the tree does not have`,
        );
        continue;
      }
      if (overridden.has(dep) || semver.validRange(range) === null) continue;
      if (!satisfiesLoose(found, range))
        problems.push(
          `${pkg.path}@${pkg.version} needs ${dep}@${range} (its published manifest) but loads ${target}@${found}`,
        );
    }
  }
  return problems;
}

export type SmokeOutcome =
  | { readonly kind: "passed" }
  | { readonly kind: "skipped"; readonly detail: string }
  | { readonly kind: "install_broken"; readonly detail: string }
  | { readonly kind: "failed"; readonly detail: string };

/**
 * Installs the locked tree from the snapshot's tarballs into `root/node_modules` beside a copy of the
 * case's own input files (the bench's copy: an agent's edits to source are judged elsewhere and never
 * run), then runs `smokePath` (CommonJS exporting `(load, scratch) => void | Promise<void>`).
 * Skipped when a locked package's tarball is not in the snapshot.
 */
export async function installAndSmoke(
  lock: Lockfile,
  snapshot: RegistrySnapshot,
  inputPath: string,
  smokePath: string,
  root: string,
): Promise<SmokeOutcome> {
  const packages = lockedPackages(lock);
  const tarballs = new Map<string, Buffer>();
  for (const pkg of packages) {
    // Never unpack outside the project, whatever the lockfile's keys say (registryProblems refuses such keys first).
    if (!isInstallPath(pkg.path))
      return { kind: "install_broken", detail: `${JSON.stringify(pkg.path)} is not a node_modules path npm writes` };
    const bytes = snapshot.tarball(pkg.name, pkg.version);
    if (bytes === null) {
      if (pkg.entry.optional === true || pkg.entry.inBundle === true) continue;
      return {
        kind: "skipped",
        detail: `the registry snapshot keeps no tarball of ${pkg.name}@${pkg.version}; judged on the registry checks alone`,
      };
    }
    if (!sriMatches(bytes, snapshot.version(pkg.name, pkg.version)!.dist.integrity))
      return {
        kind: "install_broken",
        detail: `${pkg.name}@${pkg.version}: the snapshot's tarball does not match its integrity`,
      };
    tarballs.set(pkg.path, bytes);
  }
  const project = join(root, "project");
  cpSync(inputPath, project, { recursive: true });
  for (const [path, bytes] of tarballs) {
    const problem = extract(bytes, join(project, ...path.split("/")));
    if (problem !== null) return { kind: "install_broken", detail: `${path}: ${problem}` };
  }
  const scratch = join(root, "scratch");
  mkdirSync(scratch, { recursive: true });
  try {
    const smoke = createRequire(import.meta.url)(smokePath) as (load: NodeJS.Require, scratch: string) => unknown;
    await smoke(createRequire(join(project, "package.json")), scratch);
    return { kind: "passed" };
  } catch (error) {
    return { kind: "failed", detail: describe(error) };
  }
}

/** Unpacks an npm tarball (its one top directory stripped) into dest; a problem as a string, else null. */
function extract(gzipped: Buffer, dest: string): string | null {
  let entries;
  try {
    const tar = gunzipSync(gzipped);
    entries = parseTar(new Uint8Array(tar.buffer, tar.byteOffset, tar.byteLength).slice());
  } catch (error) {
    return `the tarball does not unpack (${(error as Error).message})`;
  }
  // One mkdir per directory, not per file: a package like lodash unpacks a thousand files into a few directories.
  const made = new Set<string>();
  for (const entry of entries) {
    if (entry.type !== "file" || entry.data === undefined) continue;
    const rel = entry.name.split("/").slice(1).join("/");
    if (rel === "" || rel.split("/").some((part) => part === ".." || part === "")) continue;
    const target = join(dest, rel);
    if (relative(dest, target).split(sep)[0] === "..") continue;
    const dir = dirname(target);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(target, entry.data);
  }
  return existsSync(join(dest, "package.json")) ? null : "the tarball has no package.json";
}

/** One line about a smoke failure: an assertion's values, else the error's first line (not its require stack). */
function describe(error: unknown): string {
  if (error instanceof Error && "actual" in error && "expected" in error && error.name === "AssertionError") {
    const show = (value: unknown) => JSON.stringify(value)?.slice(0, 120) ?? String(value);
    const first = error.message.split("\n")[0]!;
    return first.startsWith("Expected values")
      ? `assertion failed: got ${show(error.actual)}, expected ${show(error.expected)}`
      : first.slice(0, 300);
  }
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 300);
}
