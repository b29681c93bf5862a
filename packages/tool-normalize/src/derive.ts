// The few canonical inputs that need parsing rather than renaming (named by the table's `derive`).
import type { CanonicalToolName, DeriveName } from "./tool-table.ts";

/** What a deriver decided: the canonical name (when it overrides the row's) and fields to add; null = pass through. */
export interface Derived {
  readonly canonical?: CanonicalToolName;
  readonly fields: Record<string, unknown>;
}

type Deriver = (input: Record<string, unknown>, nameSuffix: string) => Derived | null;

const PATCH_HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/gm;
const MOVE_HEADER = /^\*\*\* Move to: (.+)$/gm;

/** The files an apply_patch body touches, in order, with how (`add`, `update`, `delete`). */
export function patchTargets(patch: string): Array<{ path: string; kind: "add" | "update" | "delete" }> {
  const targets: Array<{ path: string; kind: "add" | "update" | "delete" }> = [];
  for (const match of patch.matchAll(PATCH_HEADER)) {
    targets.push({ path: match[2]!.trim(), kind: match[1]!.toLowerCase() as "add" | "update" | "delete" });
  }
  for (const match of patch.matchAll(MOVE_HEADER)) targets.push({ path: match[1]!.trim(), kind: "add" });
  return targets;
}

/** One file: Write when it was created, else Edit, with `file_path`. Several: Edit with `file_paths`. */
function fromTargets(targets: ReadonlyArray<{ path: string; kind: string }>): Derived {
  const paths = [...new Set(targets.map((target) => target.path))];
  if (paths.length === 1) {
    const onlyAdds = targets.every((target) => target.kind === "add");
    return { canonical: onlyAdds ? "Write" : "Edit", fields: { file_path: paths[0] } };
  }
  return { canonical: "Edit", fields: paths.length === 0 ? {} : { file_paths: paths } };
}

function firstString(input: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = input[key];
    if (typeof value === "string") return value;
  }
  return undefined;
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "/bin/sh", "/bin/bash", "/usr/bin/bash", "/bin/zsh"]);

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

const DERIVERS: Readonly<Record<DeriveName, Deriver>> = {
  patch(input) {
    const argv = Array.isArray(input.command) ? input.command.filter((part) => typeof part === "string") : [];
    const patch = firstString(input, ["input", "patch"]) ?? argv.find((part) => part.includes("*** Begin Patch"));
    return fromTargets(patch === undefined ? [] : patchTargets(patch));
  },
  file_changes(input) {
    const changes = Array.isArray(input.changes) ? input.changes : [];
    const targets = changes.flatMap((change) =>
      change !== null && typeof change === "object" && typeof (change as { path?: unknown }).path === "string"
        ? [{ path: (change as { path: string }).path, kind: String((change as { kind?: unknown }).kind ?? "update") }]
        : [],
    );
    return fromTargets(targets);
  },
  argv_command(input) {
    const raw = input.command ?? input.cmd;
    if (typeof raw === "string") return { fields: { command: raw } };
    if (!Array.isArray(raw) || !raw.every((part) => typeof part === "string")) return { fields: {} };
    const argv = raw as string[];
    const script =
      argv.length === 3 && SHELLS.has(argv[0]!) && /^-l?c$/.test(argv[1]!) ? argv[2]! : argv.map(quoteArg).join(" ");
    return { fields: { command: script, argv } };
  },
  mcp_skill(input, suffix) {
    const slash = suffix.indexOf("/");
    const server = slash === -1 ? "" : suffix.slice(0, slash);
    const tool = slash === -1 ? suffix : suffix.slice(slash + 1);
    if (/^(use|load|invoke|get|activate)_?skill$|^skill$/i.test(tool)) {
      const skill = firstString(input, ["skill", "skill_name", "skillName", "name"]);
      return { fields: skill === undefined ? {} : { skill } };
    }
    if (/(^|[-_])skills?$/i.test(server) && tool.length > 0) return { fields: { skill: tool } };
    return null;
  },
  file_paths(input) {
    const paths = Array.isArray(input.paths)
      ? input.paths.filter((path): path is string => typeof path === "string")
      : [];
    if (paths.length === 1) return { fields: { file_path: paths[0] } };
    return { fields: paths.length === 0 ? {} : { file_paths: paths } };
  },
};

export function derive(name: DeriveName, input: Record<string, unknown>, nameSuffix: string): Derived | null {
  return DERIVERS[name](input, nameSuffix);
}
