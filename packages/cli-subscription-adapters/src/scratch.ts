import { chmodSync, copyFileSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { WorkspaceInvalid } from "./errors.ts";
import type { FileChange } from "./workspace-diff.ts";
import { assertSafeRelativePath } from "./workspace-paths.ts";

/** What the CLI may see: files and directories relative to `root`; `"."` means all of it. */
export interface WorkspaceSpec {
  readonly root: string;
  readonly editable: readonly string[];
  readonly readonly: readonly string[];
}

export interface Scratch {
  readonly dir: string;
  /** Every file copied in, by workspace-relative path, with its content at copy time. */
  readonly before: ReadonlyMap<string, Buffer>;
  readonly isEditable: (path: string) => boolean;
}

function covers(prefixes: readonly string[], path: string): boolean {
  return prefixes.some((prefix) => prefix === "." || path === prefix || path.startsWith(`${prefix}/`));
}

/** Relative paths of the regular files under `dir`; symlinks and special files are refused. */
function listFiles(base: string, relative: string, out: string[], strict: boolean): void {
  const absolute = relative === "." ? base : join(base, relative);
  const stat = lstatSync(absolute);
  if (stat.isSymbolicLink()) {
    if (strict) throw new WorkspaceInvalid(`workspace path "${relative}" is a symlink; declare regular files only`, { path: relative });
    out.push(relative);
    return;
  }
  if (stat.isDirectory()) {
    for (const entry of readdirSync(absolute).sort()) listFiles(base, relative === "." ? entry : `${relative}/${entry}`, out, strict);
    return;
  }
  if (!stat.isFile()) {
    if (strict) throw new WorkspaceInvalid(`workspace path "${relative}" is not a regular file or directory`, { path: relative });
    return;
  }
  out.push(relative);
}

/**
 * A fresh temporary directory holding only the declared editable and read-only files (read-only ones
 * with mode 0444). This is for reproducibility and a clean diff, not security: the CLI still sees the
 * whole host filesystem.
 */
export function prepareScratch(spec: WorkspaceSpec): Scratch {
  const editable = spec.editable.map(assertSafeRelativePath);
  const readonly = spec.readonly.map(assertSafeRelativePath);
  const files = new Set<string>();
  for (const declared of [...editable, ...readonly]) {
    try {
      lstatSync(declared === "." ? spec.root : join(spec.root, declared));
    } catch {
      throw new WorkspaceInvalid(`declared workspace path "${declared}" does not exist under ${spec.root}`, { path: declared });
    }
    const found: string[] = [];
    listFiles(spec.root, declared, found, true);
    for (const path of found) files.add(path);
  }
  const dir = mkdtempSync(join(tmpdir(), "evalgate-cli-"));
  const before = new Map<string, Buffer>();
  const isEditable = (path: string): boolean => covers(editable, path);
  for (const path of [...files].sort()) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(spec.root, path), target);
    before.set(path, readFileSync(target));
    if (!isEditable(path)) chmodSync(target, 0o444);
  }
  return { dir, before, isEditable };
}

/** Every file the CLI added, changed or deleted in its scratch directory. */
export function collectChanges(scratch: Scratch): FileChange[] {
  const now: string[] = [];
  listFiles(scratch.dir, ".", now, false);
  const changes: FileChange[] = [];
  const seen = new Set<string>();
  for (const path of now) {
    seen.add(path);
    const absolute = join(scratch.dir, path);
    const after = lstatSync(absolute).isSymbolicLink() ? Buffer.from(`symlink`) : readFileSync(absolute);
    const before = scratch.before.get(path) ?? null;
    if (before === null || !before.equals(after)) changes.push({ path, before, after });
  }
  for (const [path, before] of scratch.before) {
    if (!seen.has(path)) changes.push({ path, before, after: null });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Copies changed editable files back into the real workspace; returns the changes it did not copy. */
export function copyBack(scratch: Scratch, root: string, changes: readonly FileChange[]): { copied: FileChange[]; undeclared: FileChange[] } {
  const copied: FileChange[] = [];
  const undeclared: FileChange[] = [];
  for (const change of changes) {
    const symlink = change.after !== null && lstatSync(join(scratch.dir, change.path)).isSymbolicLink();
    if (!scratch.isEditable(change.path) || symlink) {
      undeclared.push(change);
      continue;
    }
    const target = join(root, change.path);
    if (change.after === null) rmSync(target, { force: true });
    else {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, change.after);
    }
    copied.push(change);
  }
  return { copied, undeclared };
}

export function removeScratch(scratch: Scratch): void {
  rmSync(scratch.dir, { recursive: true, force: true });
}
