import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { ioError } from "@eval/errors";
import { CaseIdSchema, DigestsFileSchema, parseWire, safeParseWire, type DigestsFile } from "@eval/models";
import { yamlPackage } from "./yaml-package.ts";
import { CASE_DIGEST_SERIALIZATION, digestCase, type DirectoryDigest } from "./digest.ts";
import { diffFiles } from "./case-loader.ts";
import { CaseLoadFailed, CaseUnsafePath, TaskClassIncomplete } from "./errors.ts";
import { isSwapSibling, replaceFile } from "@eval/durable-fs";
import { entryKind, readText } from "./files.ts";

/** What `signBench` changed in cases/digests.yaml. */
export interface SignResult {
  readonly digests_path: string;
  /** Cases that had no entry before. */
  readonly added: readonly string[];
  /** Entries dropped because their case directory is gone. */
  readonly removed: readonly string[];
  /** Cases whose digest changed, with the files that diverged (`path (changed|added|removed)`). */
  readonly changed: readonly { readonly case_id: string; readonly files: readonly string[] }[];
  readonly unchanged: number;
  /** False when digests.yaml already said exactly this (then it is not rewritten). */
  readonly written: boolean;
}

const HEADER = [
  "# Written by `evalgate bench sign`: each case's digest and each of its files' digests",
  `# (serialization ${CASE_DIGEST_SERIALIZATION}, docs/bench-authoring.md). Do not edit by hand.`,
  "",
].join("\n");

/**
 * A case's tree as signed. A directory being swapped in beside it (a `--record` run writing its cassette,
 * or one that crashed while writing) is refused, naming it, as is a file that vanishes during the walk: a
 * signature over half a recording would be wrong, and a crash on ENOENT says nothing.
 */
async function digestCaseToSign(caseDir: string): Promise<DirectoryDigest> {
  const inFlight: string[] = [];
  const exclude = (path: string): boolean => {
    if (!isSwapSibling(basename(path))) return false;
    inFlight.push(path);
    return true;
  };
  let computed: DirectoryDigest;
  try {
    computed = digestCase(caseDir, { exclude });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    throw new CaseLoadFailed(
      caseDir,
      null,
      `changed while it was signed (${(error as Error).message}); sign again once nothing writes to the bench (a --record run?)`,
    );
  }
  if (inFlight.length > 0)
    throw new CaseLoadFailed(
      join(caseDir, inFlight[0]!),
      null,
      "is a directory being written (a --record run in flight, or one that crashed): sign after the run ends, or remove it if no run is writing",
    );
  return computed;
}

/**
 * Recomputes every case's digest after curation and rewrites cases/digests.yaml atomically, so a
 * reviewer sees exactly which cases and files changed. Refuses (CaseUnsafePath) a case holding a
 * symlink or special file: nothing unsafe gets signed.
 */
export async function signBench(taskClass: {
  readonly benchPath: string;
  readonly name?: string;
}): Promise<SignResult> {
  const casesPath = join(taskClass.benchPath, "cases");
  if ((await entryKind(casesPath)) !== "directory")
    throw new TaskClassIncomplete(taskClass.name ?? taskClass.benchPath, casesPath);
  const digestsPath = join(casesPath, "digests.yaml");
  let previous: DigestsFile["cases"] = {};
  if ((await entryKind(digestsPath)) === "file") {
    const parsed = safeParseWire(
      DigestsFileSchema,
      asCurrentSerialization(parseYamlOrNull(await readText(digestsPath))),
    );
    if (parsed.success) previous = parsed.data.cases;
  }

  const next: Record<string, { digest: string; files: Record<string, string> }> = {};
  for (const entry of (await readdir(casesPath, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.isSymbolicLink())
      throw new CaseUnsafePath(join(casesPath, entry.name), "is a symlink; case directories must be real directories");
    if (!entry.isDirectory()) continue;
    const name = CaseIdSchema.safeParse(entry.name);
    if (!name.success)
      throw new CaseLoadFailed(
        join(casesPath, entry.name),
        null,
        `a case directory is named by its case_id: ${name.error.issues[0]?.message}`,
      );
    const computed = await digestCaseToSign(join(casesPath, entry.name));
    next[entry.name] = { digest: computed.digest, files: { ...computed.files } };
  }

  const added = Object.keys(next).filter((id) => previous[id] === undefined);
  const removed = Object.keys(previous)
    .filter((id) => next[id] === undefined)
    .sort();
  const changed = Object.keys(next)
    .filter((id) => previous[id] !== undefined && previous[id]!.digest !== next[id]!.digest)
    .map((id) => ({ case_id: id, files: diffFiles(previous[id]!.files, next[id]!.files) }));
  const unchanged = Object.keys(next).length - added.length - changed.length;

  const document = parseWire(DigestsFileSchema, {
    schema_version: "evalgate.digests.v1",
    serialization: CASE_DIGEST_SERIALIZATION,
    cases: next,
  });
  const text = `${HEADER}${yamlPackage().stringify(document, { lineWidth: 0 })}`;
  const current = (await entryKind(digestsPath)) === "file" ? await readText(digestsPath) : null;
  const written = current !== text;
  if (written) {
    await replaceFile(digestsPath, text).catch((error: unknown) => {
      throw ioError(error, "cannot write", digestsPath);
    });
  }
  return { digests_path: digestsPath, added, removed, changed, unchanged, written };
}

function parseYamlOrNull(text: string): unknown {
  try {
    return yamlPackage().parse(text);
  } catch {
    return null;
  }
}

/**
 * A v1 digests.yaml read as the previous state, so the first v2 sign reports each case as changed by
 * `case.toml (added)` rather than as new. Its digests are only compared, never trusted.
 */
function asCurrentSerialization(document: unknown): unknown {
  if (document === null || typeof document !== "object") return document;
  const { serialization } = document as { serialization?: unknown };
  return serialization === "evalgate.case-tree.v1"
    ? { ...document, serialization: CASE_DIGEST_SERIALIZATION }
    : document;
}
