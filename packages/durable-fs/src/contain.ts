// Path containment: whether a path stays inside a root, decided on resolved paths in one place.
import { isAbsolute, relative, resolve, sep } from "node:path";

/**
 * Whether `path` is `root` itself or lies under it, after resolving both (`..` segments included).
 * Lexical only: it does not follow symlinks, so callers that must not cross one check the tree too.
 * A name that merely starts with two dots (`<root>/..key`) is inside.
 */
export function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
