// Reading an npm project (package.json + package-lock.json v2/v3) the way npm resolves it: which
// version every lockfile entry holds, what each manifest section declares, and whether the lockfile
// still agrees with the manifest. Pure functions over parsed JSON plus one reader; no npm process.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";

export const DEPENDENCY_SECTIONS = [
  "dependencies",
  "devDependencies",
  "optionalDependencies",
  "peerDependencies",
] as const;

export interface Manifest {
  readonly [key: string]: unknown;
}

export interface LockEntry {
  readonly version?: string;
  readonly link?: boolean;
  readonly optional?: boolean;
  readonly peer?: boolean;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly [key: string]: unknown;
}

export interface Lockfile {
  readonly lockfileVersion?: number;
  readonly packages?: Readonly<Record<string, LockEntry>>;
  readonly [key: string]: unknown;
}

export type ReadResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

/** Reads and parses a JSON object file; a missing or malformed file is a problem, not an exception. */
export function readJsonObject<T>(dir: string, file: string): ReadResult<T> {
  let text: string;
  try {
    text = readFileSync(join(dir, file), "utf8");
  } catch (error) {
    // Only absence is the agent's doing; a denied or failing read is the harness's problem: throw.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ok: false, problem: `${file} is missing` };
    throw error;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { ok: false, problem: `${file} is not a JSON object` };
    return { ok: true, value: value as T };
  } catch (error) {
    return { ok: false, problem: `${file} is not valid JSON (${(error as Error).message})` };
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The string entries of one manifest section (non-string values are ignored, as npm rejects them). */
export function section(manifest: Manifest, name: string): Record<string, string> {
  const value = manifest[name];
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/** The package name of an overrides key (`name`, `name@range`, `@scope/name@range`). */
export function overrideKeyName(key: string): string {
  return key.startsWith("@") ? `@${key.slice(1).split("@")[0]}` : key.split("@")[0]!;
}

/** Top-level `overrides` that apply to `name` everywhere: `"name": "spec"` or `"name": { ".": "spec" }`. */
export function overrideFor(manifest: Manifest, name: string): string | null {
  const overrides = manifest.overrides;
  if (!isRecord(overrides)) return null;
  for (const [key, value] of Object.entries(overrides)) {
    if (overrideKeyName(key) !== name) continue;
    if (typeof value === "string") return value;
    if (isRecord(value) && typeof value["."] === "string") return value["."];
  }
  return null;
}

/** Every override key's name, so consistency checks know which ranges npm deliberately ignores. */
export function overriddenNames(manifest: Manifest): Set<string> {
  const names = new Set<string>();
  const walk = (value: unknown) => {
    if (!isRecord(value)) return;
    for (const [key, child] of Object.entries(value)) {
      if (key === ".") continue;
      names.add(overrideKeyName(key));
      walk(child);
    }
  };
  walk(manifest.overrides);
  return names;
}

/** Lockfile keys of every installed copy of `name` (`node_modules/name`, nested ones too). */
export function entriesOf(
  lock: Lockfile,
  name: string,
): Array<{ readonly path: string; readonly version: string | null }> {
  const packages = lock.packages ?? {};
  return Object.keys(packages)
    .filter((path) => path === `node_modules/${name}` || path.endsWith(`/node_modules/${name}`))
    .sort()
    .map((path) => ({ path, version: typeof packages[path]!.version === "string" ? packages[path]!.version! : null }));
}

/** The version installed at the top level for `name`, or null. */
export function topLevelVersion(lock: Lockfile, name: string): string | null {
  const entry = lock.packages?.[`node_modules/${name}`];
  return entry && typeof entry.version === "string" ? entry.version : null;
}

/** npm's lookup: from a package's location, walk up the node_modules chain to the copy it loads. */
export function resolveFrom(lock: Lockfile, fromPath: string, name: string): string | null {
  const packages = lock.packages ?? {};
  let base = fromPath;
  for (;;) {
    const candidate = base === "" ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (base === "") return null;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut === -1 ? "" : base.slice(0, cut);
  }
}

/** The lowest version a spec admits, or null when the spec is not a semver range (git, file:, alias, tag). */
export function floorOf(spec: string): string | null {
  if (semver.validRange(spec) === null) return null;
  return semver.minVersion(spec)?.version ?? null;
}

export const satisfiesLoose = (version: string, range: string): boolean =>
  semver.satisfies(version, range, { includePrerelease: true });

const sameStringRecord = (a: Record<string, string>, b: Record<string, string>): boolean => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
};

/**
 * Problems that make the lockfile disagree with the manifest or with itself: the root entry must
 * mirror package.json's dependency sections, every direct dependency must be locked at a version its
 * range admits, and every locked package's dependencies must resolve (npm's nested lookup) to a copy
 * that satisfies the declared range, except where an override tells npm to ignore that range.
 */
export function lockfileProblems(manifest: Manifest, lock: Lockfile): string[] {
  const problems: string[] = [];
  if (typeof lock.lockfileVersion !== "number" || lock.lockfileVersion < 2 || !isRecord(lock.packages)) {
    return ["package-lock.json has no lockfileVersion >= 2 `packages` map"];
  }
  const packages = lock.packages;
  const root = packages[""];
  if (!root) return ['package-lock.json has no root entry (packages[""])'];
  const overridden = overriddenNames(manifest);
  for (const name of DEPENDENCY_SECTIONS) {
    if (!sameStringRecord(section(manifest, name), section(root, name))) {
      problems.push(`package-lock.json root ${name} differ from package.json ${name}`);
    }
  }
  for (const name of ["dependencies", "devDependencies", "optionalDependencies"] as const) {
    for (const [dep, spec] of Object.entries(section(manifest, name))) {
      const version = topLevelVersion(lock, dep);
      if (version === null) {
        if (name !== "optionalDependencies") problems.push(`${dep} (${name} ${spec}) is not in package-lock.json`);
        continue;
      }
      if (semver.validRange(spec) !== null && !satisfiesLoose(version, spec)) {
        problems.push(`${dep} is locked at ${version}, outside package.json's ${spec}`);
      }
    }
  }
  for (const [path, entry] of Object.entries(packages)) {
    if (path === "" || entry.link === true) continue;
    if (typeof entry.version !== "string" || semver.valid(entry.version) === null)
      problems.push(`${path} has no valid version`);
    const required = { ...section(entry, "dependencies"), ...section(entry, "optionalDependencies") };
    const optional = section(entry, "optionalDependencies");
    for (const [dep, range] of Object.entries(required)) {
      const target = resolveFrom(lock, path, dep);
      if (target === null) {
        if (!(dep in optional)) problems.push(`${path} needs ${dep}@${range}, which is not in package-lock.json`);
        continue;
      }
      const version = packages[target]!.version;
      if (overridden.has(dep) || typeof version !== "string" || semver.validRange(range) === null) continue;
      if (!satisfiesLoose(version, range))
        problems.push(`${path} needs ${dep}@${range} but resolves ${target}@${version}`);
    }
  }
  return problems;
}
