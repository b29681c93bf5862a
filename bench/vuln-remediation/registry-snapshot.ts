// The npm registry as the bench pinned it (registry/, written by scripts/curate-snapshot.ts): per package a
// packument trimmed to what an install needs (each version's dependencies and dist.integrity/tarball),
// the tarballs of the runnable cases' trees, and snapshot.json with every file's hash and the digest over
// them. The rubric reads it offline; the rubric digest covers it, so a changed snapshot is a new rubric.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const SNAPSHOT_SCHEMA = "vuln-remediation.registry-snapshot.v1";
export const SNAPSHOT_DIR = join(dirname(fileURLToPath(import.meta.url)), "registry");

export interface TrimmedVersion {
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
  readonly bundleDependencies?: readonly string[] | boolean;
  readonly dist: { readonly integrity: string; readonly tarball: string };
}

export interface TrimmedPackument {
  readonly name: string;
  readonly versions: Readonly<Record<string, TrimmedVersion>>;
}

// npm's package-name rule (lowercase, URL-safe, optional scope): anything else is not a registry name,
// and never becomes part of a path the rubric reads.
const NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
export const isRegistryName = (name: string): boolean => name.length <= 214 && NAME.test(name);
const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export const packumentFile = (name: string): string => `${name.replace("/", "+")}.json`;
export const tarballFile = (name: string, version: string): string => `${name.replace("/", "+")}-${version}.tgz`;

/** sha256 over the sorted `path hash` lines of snapshot.json's file list. */
export function snapshotDigest(files: Readonly<Record<string, string>>): string {
  const lines = Object.keys(files)
    .sort()
    .map((path) => `${path} ${files[path]}\n`)
    .join("");
  return `sha256:${createHash("sha256").update(lines).digest("hex")}`;
}

/** True when one of the Subresource Integrity entries (sha512, sha256 or sha1, as npm writes them) matches. */
export function sriMatches(bytes: Uint8Array, integrity: string): boolean {
  return integrity
    .trim()
    .split(/\s+/)
    .some((entry) => {
      const cut = entry.indexOf("-");
      const algorithm = entry.slice(0, cut);
      if (!["sha512", "sha384", "sha256", "sha1"].includes(algorithm)) return false;
      return createHash(algorithm).update(bytes).digest("base64") === entry.slice(cut + 1).split("?")[0];
    });
}

export class RegistrySnapshot {
  private readonly packuments = new Map<string, TrimmedPackument | null>();

  readonly dir: string;

  constructor(dir: string = SNAPSHOT_DIR) {
    this.dir = dir;
  }

  /** The registry's facts about `name@version`, or null when the snapshot has no such version. */
  version(name: string, version: string): TrimmedVersion | null {
    if (!VERSION.test(version)) return null;
    return this.packument(name)?.versions[version] ?? null;
  }

  packument(name: string): TrimmedPackument | null {
    if (!isRegistryName(name)) return null;
    if (!this.packuments.has(name)) {
      const path = join(this.dir, "packuments", packumentFile(name));
      this.packuments.set(name, existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as TrimmedPackument) : null);
    }
    return this.packuments.get(name)!;
  }

  /** The tarball's bytes when the snapshot keeps it (runnable cases only), else null. */
  tarball(name: string, version: string): Buffer | null {
    if (this.version(name, version) === null) return null;
    const path = join(this.dir, "tarballs", tarballFile(name, version));
    return existsSync(path) ? readFileSync(path) : null;
  }
}
