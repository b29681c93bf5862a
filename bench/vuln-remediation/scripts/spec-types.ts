// The shapes of the curation data (case-specs.ts, grown-case-specs.ts, control-specs.ts), kept apart so
// those files import types without importing each other.

export interface Advisory {
  readonly id: string;
  readonly cve: string;
  readonly package: string;
  /** A node-semver range of the affected versions. */
  readonly vulnerable_range: string;
  readonly patched_versions: readonly string[];
  readonly severity: "low" | "moderate" | "high" | "critical";
  readonly summary: string;
}

export type Adapter = "claude-code" | "codex" | "gemini";

export interface TextEdit {
  readonly path: string;
  readonly oldText: string;
  readonly newText: string;
}

export interface AgentScript {
  readonly adapter: Adapter;
  /** completed: the session ran to its end; refused / auth_error: nothing was changed. */
  readonly outcome: "completed" | "refused" | "auth_error";
  readonly opening: string;
  readonly edits: readonly TextEdit[];
  /** npm commands the agent ran in its workspace after editing (really run at curation time). */
  readonly npm: readonly (readonly string[])[];
  readonly finalMessage: string;
  readonly costUsd: number | null;
  /** What this session is meant to show in the aggregate. */
  readonly note: string;
}

export interface VulnCaseSpec {
  readonly id: string;
  readonly title: string;
  readonly difficulty: "easy" | "medium" | "hard";
  readonly disposition: "positive" | "negative";
  readonly curationClass: "rag-corpus-derived" | "held-out";
  readonly advisories: readonly Advisory[];
  /** The vulnerable package the case is about. */
  readonly package: string;
  readonly dependencies: Readonly<Record<string, string>>;
  /** Versions the original lockfile had (older than what the ranges resolve to today). */
  readonly lockedDirect?: Readonly<Record<string, string>>;
  readonly lockedTransitive?: Readonly<Record<string, string>>;
  readonly source: { readonly path: string; readonly content: string };
  readonly expected: {
    readonly minimal_fixed_version: string | null;
    readonly max_major: Readonly<Record<string, number>>;
    readonly allowed_files: readonly string[];
    readonly allowed_dependency_changes: readonly string[];
    readonly accepted_fixes: string;
  };
  readonly agent: AgentScript;
}

export interface ControlSpec {
  /** The reference fix: manifest edits, then npm commands (none for the negative case). */
  readonly reference: { readonly edits: readonly TextEdit[]; readonly npm: readonly (readonly string[])[] };
  /** The near-miss "needless major bump": the same kind of fix one major line too far, or why there is none. */
  readonly needlessMajor:
    | { readonly edits: readonly TextEdit[]; readonly npm: readonly (readonly string[])[] }
    | { readonly notApplicable: string };
  /**
   * expected/smoke.cjs: CommonJS exporting `(load, scratch) => void | Promise<void>`; `load` is require()
   * rooted at the installed project (the case's own source from input/ is there), `scratch` a writable
   * directory. It throws when the fixed project does not run. Null: no tarballs, static checks only.
   */
  readonly smoke: string | null;
}
