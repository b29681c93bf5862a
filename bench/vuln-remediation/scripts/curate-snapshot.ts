// Builds what the rubric's install check and `evalgate bench check` need, from the real npm registry:
//   cases/<id>/controls/   the reference fix (its npm commands really run) and the near-miss variants
//                          of near-misses.yaml derived from it, with controls.json naming what each must fail with
//   cases/<id>/expected/smoke.cjs   the case's smoke check (control-specs.ts), where the case is runnable
//   registry/              the registry snapshot: every package any of those lockfiles locks, its packument
//                          trimmed to what the rubric reads; the tarballs of every runnable case's trees;
//                          snapshot.json with each file's hash and the snapshot's digest
// Needs the npm registry (the npm client's configured one). Run from the repo root:
//   node bench/vuln-remediation/scripts/curate-snapshot.ts
// then `evalgate bench sign --task-class vuln-remediation` (controls and smoke checks are case files).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CASES, type TextEdit, type VulnCaseSpec } from "./case-specs.ts";
import { CONTROLS } from "./control-specs.ts";
import { treeProblems } from "../install-check.ts";
import {
  packumentFile,
  RegistrySnapshot,
  SNAPSHOT_SCHEMA,
  snapshotDigest,
  sriMatches,
  tarballFile,
  type TrimmedPackument,
  type TrimmedVersion,
} from "../registry-snapshot.ts";

type Json = Record<string, any>;
const BENCH = join(dirname(fileURLToPath(import.meta.url)), "..");
const REGISTRY_DIR = join(BENCH, "registry");
const SCRATCH = "/tmp/evalgate-scratch/controls";
const TAKEN_AT = new Date().toISOString().replace(/\.\d+Z$/, "Z");
const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
const readJson = (path: string): Json => JSON.parse(readFileSync(path, "utf8")) as Json;

function npm(cwd: string, args: readonly string[]): string {
  return execFileSync("npm", [...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", npm_config_update_notifier: "false" },
  });
}
const registryUrl = npm("/", ["config", "get", "registry"]).trim().replace(/\/?$/, "/");

interface Project {
  readonly manifest: Json;
  readonly lock: Json;
}

/** The project the case's recorded session left (its workspace.diff applied to input/), so replays install too. */
function recorded(spec: VulnCaseSpec): Project | null {
  const diff = join(BENCH, "cases", spec.id, "cassette", "workspace.diff");
  if (!existsSync(diff) || readFileSync(diff, "utf8").length === 0) return null;
  const ws = join(SCRATCH, spec.id, "recorded");
  rmSync(ws, { recursive: true, force: true });
  mkdirSync(dirname(ws), { recursive: true });
  cpSync(join(BENCH, "cases", spec.id, "input"), ws, { recursive: true });
  execFileSync("git", ["apply", "--whitespace=nowarn", diff], { cwd: ws, stdio: "pipe" });
  return { manifest: readJson(join(ws, "package.json")), lock: readJson(join(ws, "package-lock.json")) };
}

/** Runs edits and npm commands on a scratch copy of input/ and returns the resulting project. */
function perform(
  spec: VulnCaseSpec,
  label: string,
  edits: readonly TextEdit[],
  commands: readonly (readonly string[])[],
): Project {
  const ws = join(SCRATCH, spec.id, label);
  rmSync(ws, { recursive: true, force: true });
  mkdirSync(dirname(ws), { recursive: true });
  cpSync(join(BENCH, "cases", spec.id, "input"), ws, { recursive: true });
  for (const edit of edits) {
    const text = readFileSync(join(ws, edit.path), "utf8");
    if (!text.includes(edit.oldText)) throw new Error(`${spec.id} ${label}: edit target not found in ${edit.path}`);
    writeFileSync(join(ws, edit.path), text.replace(edit.oldText, edit.newText));
  }
  for (const args of commands) npm(ws, args);
  return { manifest: readJson(join(ws, "package.json")), lock: readJson(join(ws, "package-lock.json")) };
}

const nameOfPath = (path: string): string => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
function lockedPackages(lock: Json): Array<{ path: string; name: string; version: string }> {
  return Object.entries(lock.packages as Record<string, Json>)
    .filter(([path, entry]) => path !== "" && entry.link !== true)
    .map(([path, entry]) => ({
      path,
      name: typeof entry.name === "string" ? entry.name : nameOfPath(path),
      version: String(entry.version),
    }));
}

async function get(url: string, accept: string): Promise<Response> {
  const response = await fetch(url, { headers: { accept } });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return response;
}

async function fetchPackument(name: string): Promise<TrimmedPackument> {
  const url = `${registryUrl}${name.startsWith("@") ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name)}`;
  const full = (await (await get(url, "application/vnd.npm.install-v1+json")).json()) as Json;
  const versions: Record<string, TrimmedVersion> = {};
  for (const [version, meta] of Object.entries(full.versions as Record<string, Json>)) {
    const keep: Json = {};
    for (const key of [
      "dependencies",
      "optionalDependencies",
      "peerDependencies",
      "peerDependenciesMeta",
      "bundleDependencies",
    ]) {
      if (meta[key] !== undefined && Object.keys(meta[key]).length > 0) keep[key] = meta[key];
    }
    keep.dist = {
      integrity: meta.dist.integrity ?? `sha1-${Buffer.from(meta.dist.shasum, "hex").toString("base64")}`,
      tarball: meta.dist.tarball,
    };
    versions[version] = keep as TrimmedVersion;
  }
  return { name, versions };
}

type Variant =
  | { readonly kind: string; readonly project: Project; readonly expect: string }
  | { readonly kind: string; readonly notApplicable: string };

/** The advised package's lockfile entries the reference changed, as [path, input entry, reference entry]. */
function changedAdvisedEntries(
  spec: VulnCaseSpec,
  input: Project,
  reference: Project,
): Array<[string, Json | undefined, Json]> {
  return Object.entries(reference.lock.packages as Record<string, Json>)
    .filter(([path]) => nameOfPath(path) === spec.package && path.includes("node_modules/"))
    .filter(([path, entry]) => input.lock.packages[path]?.version !== entry.version)
    .map(([path, entry]) => [path, input.lock.packages[path] as Json | undefined, entry]);
}

const clone = <T>(value: T): T => structuredClone(value);
const depsChanged = (a: Json, b: Json) =>
  ["dependencies", "devDependencies", "optionalDependencies"].some(
    (s) => JSON.stringify(a[s] ?? {}) !== JSON.stringify(b[s] ?? {}),
  );

function nearMisses(
  spec: VulnCaseSpec,
  input: Project,
  reference: Project,
  major: Project | null,
  registry: RegistrySnapshot,
): Variant[] {
  if (spec.disposition === "negative")
    return KINDS.map((kind) => ({ kind, notApplicable: "a negative case: the right change is none" }));
  const out: Variant[] = [];
  const manifestChanged = JSON.stringify(input.manifest) !== JSON.stringify(reference.manifest);
  const directlyDeclared = Object.keys(input.manifest.dependencies ?? {}).includes(spec.package);
  out.push(
    manifestChanged
      ? {
          kind: "lockfile-only",
          project: { manifest: input.manifest, lock: reference.lock },
          expect: directlyDeclared ? "still_vulnerable" : "lockfile_inconsistent",
        }
      : { kind: "lockfile-only", notApplicable: "the reference fix is itself a lockfile-only update" },
  );
  out.push(
    manifestChanged
      ? {
          kind: "manifest-only",
          project: { manifest: reference.manifest, lock: input.lock },
          expect: depsChanged(input.manifest, reference.manifest) ? "lockfile_inconsistent" : "still_vulnerable",
        }
      : { kind: "manifest-only", notApplicable: "the reference fix does not change package.json" },
  );
  const advised = changedAdvisedEntries(spec, input, reference);
  // The patched version's entry with the old version's dependencies, in the old tree.
  const bumped = clone(input.lock);
  bumped.packages[""] = clone(reference.lock.packages[""]);
  for (const [path, before, after] of advised)
    bumped.packages[path] = { ...clone(before ?? {}), version: after.version, integrity: after.integrity };
  // A near miss only where the patched release's real dependencies break the old tree.
  out.push(
    treeProblems(reference.manifest, bumped, registry).length > 0
      ? {
          kind: "bump-without-dependencies",
          project: { manifest: reference.manifest, lock: bumped },
          expect: "install_broken",
        }
      : {
          kind: "bump-without-dependencies",
          notApplicable: `every dependency of the patched ${spec.package} is already in the old tree, so a bare version bump installs`,
        },
  );
  const withEntry = (kind: string, edit: (entry: Json, before: Json | undefined) => void, expect: string): Variant => {
    const lock = clone(reference.lock);
    for (const [path, before] of advised) edit(lock.packages[path], before);
    return { kind, project: { manifest: reference.manifest, lock }, expect };
  };
  out.push(withEntry("dropped-integrity", (entry) => delete entry.integrity, "integrity_mismatch"));
  const previous = Object.entries(input.lock.packages as Record<string, Json>).find(
    ([path]) => path.includes("node_modules/") && nameOfPath(path) === spec.package,
  )?.[1];
  out.push(
    withEntry(
      "wrong-integrity",
      (entry, before) => (entry.integrity = (before ?? previous)!.integrity),
      "integrity_mismatch",
    ),
  );
  out.push(
    withEntry(
      "invented-resolved",
      (entry) =>
        (entry.resolved = `https://npm-mirror.example/${spec.package}/-/${spec.package.split("/").pop()}-${entry.version}.tgz`),
      "integrity_mismatch",
    ),
  );
  const declared = CONTROLS[spec.id]!.needlessMajor;
  out.push(
    major === null || "notApplicable" in declared
      ? {
          kind: "needless-major-bump",
          notApplicable: "notApplicable" in declared ? declared.notApplicable : "none declared",
        }
      : { kind: "needless-major-bump", project: major, expect: "needless_major_bump" },
  );
  return out;
}

const KINDS = [
  "lockfile-only",
  "manifest-only",
  "bump-without-dependencies",
  "dropped-integrity",
  "wrong-integrity",
  "invented-resolved",
  "needless-major-bump",
];

/** Writes the files of `project` that differ from input/ into dir (an overlay on input/). */
function writeOverlay(dir: string, input: Project, project: Project): void {
  mkdirSync(dir, { recursive: true });
  if (JSON.stringify(project.manifest) !== JSON.stringify(input.manifest))
    writeFileSync(join(dir, "package.json"), json(project.manifest));
  if (JSON.stringify(project.lock) !== JSON.stringify(input.lock))
    writeFileSync(join(dir, "package-lock.json"), json(project.lock));
}

function sriOf(bytes: Buffer, integrity: string): string {
  const algorithm = integrity.split("-")[0]!;
  return `${algorithm}-${createHash(algorithm).update(bytes).digest("base64")}`;
}

async function main(): Promise<void> {
  const projects = new Map<
    string,
    { spec: VulnCaseSpec; input: Project; reference: Project; major: Project | null; session: Project | null }
  >();
  for (const spec of CASES) {
    const control = CONTROLS[spec.id];
    if (control === undefined) throw new Error(`${spec.id} has no entry in control-specs.ts`);
    const inputDir = join(BENCH, "cases", spec.id, "input");
    const input = {
      manifest: readJson(join(inputDir, "package.json")),
      lock: readJson(join(inputDir, "package-lock.json")),
    };
    const reference = perform(spec, "reference", control.reference.edits, control.reference.npm);
    const major =
      "notApplicable" in control.needlessMajor
        ? null
        : perform(spec, "needless-major-bump", control.needlessMajor.edits, control.needlessMajor.npm);
    projects.set(spec.id, { spec, input, reference, major, session: recorded(spec) });
    process.stderr.write(`${spec.id}: reference resolved\n`);
  }
  const names = new Set<string>();
  for (const { input, reference, major, session } of projects.values()) {
    for (const p of [input, reference, major, session])
      if (p !== null) for (const pkg of lockedPackages(p.lock)) names.add(pkg.name);
  }
  const packuments = new Map<string, TrimmedPackument>();
  for (const name of [...names].sort()) packuments.set(name, await fetchPackument(name));
  process.stderr.write(`${packuments.size} packuments fetched\n`);

  rmSync(REGISTRY_DIR, { recursive: true, force: true });
  mkdirSync(join(REGISTRY_DIR, "packuments"), { recursive: true });
  mkdirSync(join(REGISTRY_DIR, "tarballs"), { recursive: true });
  const files: Record<string, string> = {};
  for (const [name, packument] of packuments) {
    const path = `packuments/${packumentFile(name)}`;
    const text = json(packument);
    writeFileSync(join(REGISTRY_DIR, path), text);
    files[path] = `sha256-${createHash("sha256").update(text).digest("base64")}`;
  }

  const registry = new RegistrySnapshot(REGISTRY_DIR);
  const wanted = new Map<string, TrimmedVersion & { name: string; version: string }>();
  for (const { spec, input, reference, major, session } of projects.values()) {
    const caseDir = join(BENCH, "cases", spec.id);
    const variants = nearMisses(spec, input, reference, major, registry);
    rmSync(join(caseDir, "controls"), { recursive: true, force: true });
    // A negative case's reference is the untouched input: null, since git keeps no empty overlay directory.
    const negative = spec.disposition === "negative";
    mkdirSync(join(caseDir, "controls"), { recursive: true });
    if (!negative) writeOverlay(join(caseDir, "controls", "reference"), input, reference);
    const declared: Json = {};
    for (const variant of variants) {
      if ("notApplicable" in variant) declared[variant.kind] = { not_applicable: variant.notApplicable };
      else {
        writeOverlay(join(caseDir, "controls", variant.kind), input, variant.project);
        declared[variant.kind] = { expect: variant.expect };
      }
    }
    writeFileSync(
      join(caseDir, "controls", "controls.json"),
      json({ schema: "evalgate.bench-controls.v1", reference: negative ? null : "reference", near_misses: declared }),
    );
    const smoke = CONTROLS[spec.id]!.smoke;
    rmSync(join(caseDir, "expected", "smoke.cjs"), { force: true });
    if (smoke === null) continue;
    writeFileSync(join(caseDir, "expected", "smoke.cjs"), smoke);
    for (const project of [
      input,
      reference,
      ...(session === null ? [] : [session]),
      ...variants.flatMap((v) => ("project" in v ? [v.project] : [])),
    ]) {
      for (const pkg of lockedPackages(project.lock)) {
        const meta = packuments.get(pkg.name)?.versions[pkg.version];
        if (meta !== undefined)
          wanted.set(`${pkg.name}@${pkg.version}`, { ...meta, name: pkg.name, version: pkg.version });
      }
    }
  }
  for (const item of [...wanted.values()].sort((a, b) =>
    `${a.name}@${a.version}`.localeCompare(`${b.name}@${b.version}`),
  )) {
    const bytes = Buffer.from(await (await get(item.dist.tarball, "application/octet-stream")).arrayBuffer());
    if (!sriMatches(bytes, item.dist.integrity))
      throw new Error(`${item.name}@${item.version}: the tarball does not match the registry's integrity`);
    const path = `tarballs/${tarballFile(item.name, item.version)}`;
    writeFileSync(join(REGISTRY_DIR, path), bytes);
    files[path] = sriOf(bytes, "sha512-");
  }
  process.stderr.write(`${wanted.size} tarballs fetched\n`);
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(
    join(REGISTRY_DIR, "snapshot.json"),
    json({
      schema: SNAPSHOT_SCHEMA,
      registry: registryUrl,
      taken_at: TAKEN_AT,
      digest: snapshotDigest(sorted),
      files: sorted,
    }),
  );
  const size = readdirSync(join(REGISTRY_DIR, "tarballs")).reduce(
    (sum, f) => sum + readFileSync(join(REGISTRY_DIR, "tarballs", f)).length,
    0,
  );
  process.stderr.write(
    `snapshot written: ${Object.keys(files).length} files, tarballs ${(size / 1e6).toFixed(1)} MB\n`,
  );
  if (!existsSync(join(REGISTRY_DIR, "snapshot.json"))) throw new Error("snapshot.json was not written");
}

if (import.meta.main) await main();
