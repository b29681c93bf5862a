import { isAbsolute, normalize, sep } from "node:path";
import { WorkspaceInvalid } from "./errors.ts";

/** Throws unless `path` is relative, stays inside its root, and is not empty. Returns it `/`-separated. */
export function assertSafeRelativePath(path: string): string {
  const normalized = normalize(path).split(sep).join("/");
  if (
    path === "" ||
    isAbsolute(path) ||
    normalized === ".." ||
    normalized.startsWith("../") ||
    normalized.includes("\0")
  ) {
    throw new WorkspaceInvalid(`workspace path "${path}" escapes the workspace root`, { path });
  }
  return normalized === "./" ? "." : normalized.replace(/\/$/, "");
}
