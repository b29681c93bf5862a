import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { applyPatch, createTwoFilesPatch, parsePatch } from "diff";
import { assertSafeRelativePath } from "./workspace-paths.ts";

export interface FileChange {
  /** Workspace-relative path with `/` separators. */
  readonly path: string;
  readonly before: Buffer | null;
  readonly after: Buffer | null;
  /**
   * A side too large to hold (or not a regular file): its content is not carried (an empty buffer stands
   * for a side that exists). A unified diff cannot carry the change; it is listed with the binary paths.
   */
  readonly omitted?: boolean;
}

function isBinary(content: Buffer | null): boolean {
  return content !== null && content.includes(0);
}

/**
 * A unified diff (`a/` and `b/` prefixes, `/dev/null` for added and deleted files) of text changes,
 * in path order. Binary and omitted (too large) files cannot be carried by a unified diff; they are returned separately.
 */
export function unifiedDiff(changes: readonly FileChange[]): { diff: string; binaryPaths: string[] } {
  const parts: string[] = [];
  const binaryPaths: string[] = [];
  for (const change of [...changes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (change.omitted === true || isBinary(change.before) || isBinary(change.after)) {
      binaryPaths.push(change.path);
      continue;
    }
    const oldName = change.before === null ? "/dev/null" : `a/${change.path}`;
    const newName = change.after === null ? "/dev/null" : `b/${change.path}`;
    const patch = createTwoFilesPatch(
      oldName,
      newName,
      change.before?.toString("utf8") ?? "",
      change.after?.toString("utf8") ?? "",
      undefined,
      undefined,
      {
        context: 3,
      },
    );
    // Drop the `====` separator line createTwoFilesPatch puts first: plain `---`/`+++` headers, like git.
    parts.push(patch.replace(/^=+\n/, ""));
  }
  return { diff: parts.join(""), binaryPaths };
}

function stripPrefix(name: string | undefined, prefix: "a/" | "b/"): string | null {
  if (name === undefined || name === "/dev/null") return null;
  const clean = name.split("\t")[0]!;
  return clean.startsWith(prefix) ? clean.slice(prefix.length) : clean;
}

/**
 * Applies a unified diff written by `unifiedDiff` to the files under `root`. Every hunk must apply
 * exactly; the first one that does not throws (naming the file) before anything is written.
 */
export function applyUnifiedDiff(root: string, diffText: string): string[] {
  if (diffText.trim() === "") return [];
  const patches = parsePatch(diffText);
  const planned: { path: string; content: string | null }[] = [];
  for (const patch of patches) {
    const oldPath = stripPrefix(patch.oldFileName, "a/");
    const newPath = stripPrefix(patch.newFileName, "b/");
    const path = newPath ?? oldPath;
    if (path === null) throw new Error("a diff entry names neither an old nor a new file");
    assertSafeRelativePath(path);
    const target = join(root, path);
    const current = oldPath === null ? "" : existsSync(target) ? readFileSync(target, "utf8") : null;
    if (current === null) throw new Error(`the diff changes ${path}, which does not exist in the workspace`);
    if (oldPath === null && existsSync(target))
      throw new Error(`the diff adds ${path}, which already exists in the workspace`);
    const result = applyPatch(current, patch);
    if (result === false) throw new Error(`the diff for ${path} does not apply to the workspace's copy`);
    planned.push({ path, content: newPath === null ? null : result });
  }
  for (const { path, content } of planned) {
    const target = join(root, path);
    if (content === null) rmSync(target, { force: true });
    else {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
  }
  return planned.map((entry) => entry.path);
}
