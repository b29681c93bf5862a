// A shard bundle on disk: manifest.json, plan.json, units/<case_id>.t<trial>.json and, when an agent
// SUT wrote any, transcripts.jsonl. The manifest holds the BLAKE3 of every other file.
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { swapDirectory } from "@eval/durable-fs";
import { blake3Digest } from "@eval/hashing";
import { EvalError, ioError, isEvalError } from "@eval/errors";
import {
  formatIssues,
  SHARD_MANIFEST_SCHEMA_VERSION,
  SHARD_UNIT_SCHEMA_VERSION,
  ShardManifestSchema,
  ShardUnitSchema,
  safeParseWire,
} from "@eval/models";
import type { BenchScore, RunPlan, ShardManifest, ShardUnit } from "@eval/models";
import { TreeInvalid, walkTree } from "@eval/sandbox";
import { PAYLOAD_TYPES, signatureFault, signDocument } from "@eval/audit-chain";
import type { SigningKey } from "@eval/audit-chain";
import { parsePlan } from "./plan.ts";

export interface BundleUnit {
  readonly case_id: string;
  readonly trial: number;
  readonly cache_key: string;
  readonly cache_hit: boolean;
  readonly score: BenchScore;
  readonly detail: Record<string, unknown> | null;
}

export interface BundleContent {
  readonly plan: RunPlan;
  readonly shard: { readonly index: number; readonly count: number };
  readonly hostFingerprint: string;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly complete: boolean;
  /** The limits its sandboxed SUT and rubric ran under (its report's `resource_limit_values`). */
  readonly resourceLimitValues?: ShardManifest["resource_limit_values"];
  readonly units: readonly BundleUnit[];
  readonly transcripts: string | null;
  /** Signs the manifest (and through its digests, every file) when given. */
  readonly signingKey?: SigningKey | null;
}

export interface ReadBundle {
  readonly dir: string;
  readonly manifest: ShardManifest;
  readonly plan: RunPlan;
  readonly units: readonly ShardUnit[];
}

function fileDigest(bytes: string | Uint8Array): string {
  return blake3Digest(bytes);
}

export function unitFileName(caseId: string, trial: number): string {
  return `units/${caseId}.t${trial}.json`;
}

/**
 * Writes a bundle into a staging directory beside `dir`, then renames it into place: `dir` holds a
 * whole bundle or nothing. Refuses when `dir` exists (a bundle is never overwritten).
 */
export async function writeBundle(dir: string, content: BundleContent): Promise<ShardManifest> {
  const target = resolve(dir);
  if (existsSync(target))
    throw new EvalError("EVAL_USAGE", `the bundle directory ${target} already exists`, {
      hint: "give each shard its own new --bundle directory",
    });
  const files: { path: string; text: string }[] = [
    { path: "plan.json", text: `${JSON.stringify(content.plan, null, 2)}\n` },
  ];
  for (const unit of content.units) {
    const body = safeParseWire(ShardUnitSchema, {
      schema_version: SHARD_UNIT_SCHEMA_VERSION,
      plan_id: content.plan.plan_id,
      ...unit,
    });
    if (!body.success)
      throw new Error(`evalgate built an invalid shard unit for ${unit.case_id}: ${formatIssues(body.issues)}`);
    files.push({ path: unitFileName(unit.case_id, unit.trial), text: `${JSON.stringify(body.data, null, 2)}\n` });
  }
  if (content.transcripts !== null) files.push({ path: "transcripts.jsonl", text: content.transcripts });
  const fields = {
    schema_version: SHARD_MANIFEST_SCHEMA_VERSION,
    plan_id: content.plan.plan_id,
    shard: content.shard,
    host_fingerprint: content.hostFingerprint,
    started_at: content.startedAt,
    ended_at: content.endedAt,
    complete: content.complete,
    ...(content.resourceLimitValues === undefined ? {} : { resource_limit_values: content.resourceLimitValues }),
    units: content.units.map((unit) => ({
      case_id: unit.case_id,
      trial: unit.trial,
      file: unitFileName(unit.case_id, unit.trial),
    })),
    files: files.map((file) => ({ path: file.path, digest: fileDigest(file.text) })),
  };
  const key = content.signingKey ?? null;
  const manifest = key === null ? fields : { ...fields, signature: signDocument(key, PAYLOAD_TYPES.manifest, fields) };
  const checked = safeParseWire(ShardManifestSchema, manifest);
  if (!checked.success) throw new Error(`evalgate built an invalid shard manifest: ${formatIssues(checked.issues)}`);
  // Each file flushed as it is written: the bundle is handed to another machine, whole or not at all.
  await swapDirectory(
    target,
    async (staging) => {
      await mkdir(join(staging, "units"), { recursive: true });
      for (const file of files) await writeFile(join(staging, file.path), file.text, { flag: "wx", flush: true });
      await writeFile(join(staging, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`, {
        flag: "wx",
        flush: true,
      });
    },
    { replace: false },
  ).catch((error: unknown) => {
    throw ioError(error, "cannot write the bundle", target);
  });
  return checked.data;
}

function tampered(dir: string, what: string): EvalError {
  return new EvalError("EVAL_BUNDLE_TAMPERED", `bundle ${dir}: ${what}`, { details: { bundle: dir } });
}

async function readJson(dir: string, path: string, bytes?: Buffer): Promise<unknown> {
  try {
    return JSON.parse((bytes ?? (await readFile(join(dir, path)))).toString("utf8"));
  } catch (error) {
    throw tampered(dir, `${path} is not readable JSON (${(error as Error).message.slice(0, 120)})`);
  }
}

/** A bundle's plan.json passed its digest check, so a plan that does not parse was written that way: tampering. */
function parseBundlePlan(root: string, value: unknown): RunPlan {
  try {
    return parsePlan(value, `${root}/plan.json`);
  } catch (error) {
    if (isEvalError(error) && error.code === "EVAL_PLAN_INVALID") throw tampered(root, error.message);
    throw error;
  }
}

/** A bundle is a plain tree: its directory and `units/` hold regular files only, never a symlink, device or FIFO. */
async function assertPlainTree(root: string): Promise<void> {
  const top = await lstat(root).catch(() => null);
  if (top?.isSymbolicLink() === true) throw tampered(root, "is a symlink: a bundle is a plain directory");
  if (top === null || !top.isDirectory()) return;
  try {
    for await (const entry of walkTree(root, {
      maxDepth: 2,
      maxEntries: 1_000_000,
      maxBytes: Number.MAX_SAFE_INTEGER,
    })) {
      if (entry.kind !== "file" && !(entry.kind === "directory" && entry.path === "units"))
        throw tampered(root, `${entry.path} is a ${entry.kind}: a bundle holds only regular files (and units/)`);
    }
  } catch (error) {
    if (error instanceof TreeInvalid) throw tampered(root, error.message);
    throw error;
  }
}

/**
 * Reads a bundle and checks its integrity: the manifest is valid, every file it lists has the digest
 * it says and no other file is there, the plan's content is its plan_id, and every unit belongs to
 * that plan and sits under its own name. Any failure is EVAL_BUNDLE_TAMPERED naming the file.
 */
export async function readBundle(dir: string): Promise<ReadBundle> {
  const root = resolve(dir);
  if ((await lstat(root).catch(() => null)) === null)
    throw new EvalError("EVAL_IO", `bundle ${root} does not exist`, {
      hint: "check the path: a bundle is the directory `evalgate run --shard i/N` wrote (shard-<i>-of-<N> by default)",
      details: { bundle: root },
    });
  await assertPlainTree(root);
  if (!existsSync(join(root, "manifest.json")))
    throw tampered(root, "has no manifest.json (not a bundle, or a shard that did not finish)");
  const parsed = safeParseWire(ShardManifestSchema, await readJson(root, "manifest.json"));
  if (!parsed.success) throw tampered(root, `manifest.json is not a shard manifest: ${formatIssues(parsed.issues)}`);
  const manifest = parsed.data;
  if (manifest.signature !== undefined) {
    const { signature, ...fields } = manifest;
    const problem = signatureFault(signature, PAYLOAD_TYPES.manifest, fields);
    if (problem !== null) throw tampered(root, `manifest.json: ${problem}`);
  }
  const listed = new Map(manifest.files.map((file) => [file.path, file.digest]));
  const present = [
    ...(await readdir(root)).filter((name) => name !== "manifest.json" && name !== "units"),
    ...(existsSync(join(root, "units")) ? (await readdir(join(root, "units"))).map((name) => `units/${name}`) : []),
  ];
  for (const path of present)
    if (!listed.has(path))
      throw tampered(root, `${path} is not listed in manifest.json (added after the shard wrote it)`);
  const bytesOf = new Map<string, Buffer>();
  for (const [path, digest] of listed) {
    const bytes = await readFile(join(root, path)).catch(() => null);
    if (bytes === null) throw tampered(root, `${path}, listed in manifest.json, is missing`);
    const found = fileDigest(bytes);
    if (found !== digest)
      throw tampered(root, `${path} was edited after the shard wrote it (digest ${found}, manifest says ${digest})`);
    bytesOf.set(path, bytes);
  }
  const plan = parseBundlePlan(root, await readJson(root, "plan.json", bytesOf.get("plan.json")));
  if (plan.plan_id !== manifest.plan_id)
    throw tampered(root, `plan.json is plan ${plan.plan_id}, the manifest says ${manifest.plan_id}`);
  const units: ShardUnit[] = [];
  for (const entry of manifest.units) {
    const bytes = bytesOf.get(entry.file);
    if (bytes === undefined || entry.file !== unitFileName(entry.case_id, entry.trial))
      throw tampered(root, `unit ${entry.case_id} trial ${entry.trial} has no listed file ${entry.file}`);
    const unit = safeParseWire(ShardUnitSchema, await readJson(root, entry.file, bytes));
    if (!unit.success) throw tampered(root, `${entry.file} is not a shard unit: ${formatIssues(unit.issues)}`);
    if (unit.data.plan_id !== plan.plan_id || unit.data.case_id !== entry.case_id || unit.data.trial !== entry.trial)
      throw tampered(root, `${entry.file} holds another unit or plan`);
    units.push(unit.data);
  }
  return { dir: root, manifest, plan, units };
}
