// The contract each CLI module under clis/ implements (AgentAdapter), and the stream observer and
// classification rules they share.
import type {
  AgentAdapterName,
  CliErrorKind,
  SafetyDetection,
  TranscriptFormat,
  TrialClassification,
} from "@eval/models";

/** What the process-control layer observed, beyond the stream itself. */
export interface ProcessFacts {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly stdoutCapped: boolean;
  readonly aborted: boolean;
  readonly stderr: string;
  readonly spawnError: string | null;
  /** The CLI's own login check, when the adapter needs one (its stream does not say "not logged in"). */
  readonly authStatus: AuthStatus | null;
}

export type AuthStatus = "logged_in" | "logged_out" | "unknown";

/** An error the stream itself reported. `fatal: false` marks retries the CLI announces and survives. */
export interface StreamError {
  readonly kind: CliErrorKind | null;
  readonly message: string;
  readonly fatal: boolean;
}

/** Everything classification needs, collected from the stream line by line. */
export interface StreamFacts {
  readonly events: number;
  /** Non-blank stdout lines that were not a JSON object. */
  readonly nonJsonLines: number;
  /** Distinct event `type`s the adapter does not know (drift), in order of appearance. */
  readonly unknownEventTypes: readonly string[];
  /** `<event>.<field>` for known events lacking a field the adapter needs. */
  readonly missingFields: readonly string[];
  /** The session's final event (Claude `result`, Codex `turn.completed`/`turn.failed`, Gemini `result`). */
  readonly terminal: {
    readonly success: boolean;
    readonly kind: CliErrorKind | null;
    readonly message: string | null;
  } | null;
  readonly errors: readonly StreamError[];
  /** A structured refusal that ended the model's answer (event and field), when the stream carried one. */
  readonly refusal: string | null;
  /** A structured safety signal that did not necessarily end the session (e.g. a refusal with a model fallback). */
  readonly safetySignal: string | null;
  /** The last assistant text, for the refusal phrase table. */
  readonly finalText: string | null;
  readonly costUsd: number | null;
}

/** Consumes one session's stdout lines. `push` returns true when the line ended the session. */
export interface StreamObserver {
  push(line: string): boolean;
  facts(): StreamFacts;
}

export interface AdapterCapabilities {
  /** How the prompt reaches the CLI: as a flag value (visible in recorded argv) or on stdin. */
  readonly prompt_via: "flag" | "stdin";
  /** The stream reports cost in USD. */
  readonly reports_cost: boolean;
  /** The stream itself says when the CLI is not logged in (else the backend asks the CLI's login check). */
  readonly auth_visible_in_stream: boolean;
  /** The CLI has a login-status subcommand `adapters doctor` can call. */
  readonly auth_status_command: boolean;
}

export interface BuiltInvocation {
  readonly args: readonly string[];
  readonly stdin?: string;
  /** Variables the adapter sets for the CLI (never secrets). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface ArgvOptions {
  readonly workspaceDir: string;
  /**
   * The CLI runs inside evalgate's bubblewrap sandbox, which is then the boundary: a CLI's own nested
   * sandbox (Codex's bwrap) cannot map its uid without capabilities that sandbox drops, so it is turned off.
   */
  readonly insideSandbox: boolean;
}

export interface AgentAdapter {
  readonly name: AgentAdapterName;
  readonly displayName: string;
  /** The executable looked up on PATH when no path is configured. */
  readonly binaryName: string;
  /** The npm package that provides it (for install hints). */
  readonly npmPackage: string;
  readonly streamFormat: TranscriptFormat;
  readonly capabilities: AdapterCapabilities;
  /** Environment variable names (exact, or prefixes ending in `_`) the CLI needs from the host env. */
  readonly envPassthrough: readonly string[];
  /**
   * The CLI's own login and config files, relative to HOME: in the sandbox the CLI gets a temporary
   * HOME holding copies of exactly these (when they exist), and nothing else of the user's home.
   */
  readonly homeFiles: readonly string[];
  /** argv for `<binary> <args>` printing the version. */
  readonly versionArgs: readonly string[];
  /** Variables the version command runs with besides the CLI's environment (e.g. to skip a slow self-relaunch). */
  readonly versionEnv?: Readonly<Record<string, string>>;
  /** Picks the version number out of the version command's output (null when it is not there). */
  parseVersion(output: string): string | null;
  /**
   * argv (long flags only; never a shell/eval/REPL mode or a permission-bypass flag) and stdin for one
   * non-interactive session in `workspaceDir`.
   */
  buildArgv(prompt: string, options: ArgvOptions): BuiltInvocation;
  /**
   * Files this CLI refuses to edit in non-interactive mode whatever its settings (Gemini CLI's Build File
   * Protection): a live run refuses, before any case starts, cases whose input holds one (`limits`).
   */
  readonly uneditableFiles?: { readonly matches: (relativePath: string) => boolean; readonly reason: string };
  observeStream(): StreamObserver;
  classify(facts: StreamFacts, exit: ProcessFacts): TrialClassification;
  detectSafety(facts: StreamFacts): SafetyDetection;
  /** The CLI's own login check (`claude auth status`, `codex login status`), when it has one. */
  readonly authStatus?: {
    readonly args: readonly string[];
    interpret(
      result: { readonly stdout: string; readonly stderr: string; readonly exitCode: number | null },
      env: Readonly<Record<string, string>>,
    ): AuthStatus;
  };
}

/** Adapter-specific pieces the shared classification needs. */
export interface ClassificationRules {
  /** Maps a non-zero exit code with no decisive stream to a kind (e.g. Gemini's 41 = auth). */
  readonly exitCodes?: Readonly<Record<number, CliErrorKind>>;
  /** Recognises auth problems in stderr text (for CLIs that print them there). */
  readonly stderrAuth?: RegExp;
}

const NETWORK =
  /(network|reconnecting|connection|lookup address|ENOTFOUND|EAI_AGAIN|fetch failed|ECONNREFUSED|socket)/i;

/**
 * The decision procedure every adapter shares, most decisive evidence first: could not start; the
 * stream (or the CLI's login check) says auth failed; output cap; a structured refusal; a terminal
 * event (success, drift or error); then, without one, fatal stream errors, the exit-code table, the
 * deadline, and what little stdout there was. The exit code alone never makes a success.
 */
export function classifyTrial(
  facts: StreamFacts,
  proc: ProcessFacts,
  rules: ClassificationRules = {},
): TrialClassification {
  const cliError = (kind: CliErrorKind, reason: string): TrialClassification => ({
    trial_class: "cli_error",
    cli_error_kind: kind,
    reason,
  });
  if (proc.spawnError !== null) return cliError("spawn_failed", `the CLI could not be started: ${proc.spawnError}`);

  const authError = facts.errors.find((error) => error.kind === "auth_failure");
  if (authError !== undefined)
    return cliError("auth_failure", `auth failure reported in the stream: ${authError.message}`);
  if (facts.terminal?.kind === "auth_failure")
    return cliError("auth_failure", `auth failure reported in the result: ${facts.terminal.message ?? ""}`);
  if (proc.authStatus === "logged_out" && facts.terminal?.success !== true) {
    return cliError(
      "auth_failure",
      "the CLI's own login check reports it is not logged in, and no session result arrived",
    );
  }
  if (proc.stdoutCapped)
    return cliError("stdout_cap", "stdout passed the cap; the process group was killed (partial output kept)");
  if (facts.refusal !== null)
    return {
      trial_class: "model_refusal",
      cli_error_kind: null,
      reason: `structured refusal signal: ${facts.refusal}`,
    };

  const terminal = facts.terminal;
  if (terminal !== null) {
    if (!terminal.success)
      return cliError(
        terminal.kind ?? "api_error",
        `the session ended in an error result: ${terminal.message ?? "(no message)"}`,
      );
    if (facts.unknownEventTypes.length > 0 || facts.missingFields.length > 0) {
      return {
        trial_class: "format_drift",
        cli_error_kind: null,
        reason: `success result, but the stream drifted: ${describeDrift(facts)}`,
      };
    }
    if (facts.nonJsonLines > 0) {
      return {
        trial_class: "parse_failure",
        cli_error_kind: null,
        reason: `${facts.nonJsonLines} stdout line(s) were not JSON objects`,
      };
    }
    return {
      trial_class: "parse_success",
      cli_error_kind: null,
      reason: "terminal success event; every event understood",
    };
  }

  const fatal = facts.errors.find((error) => error.fatal);
  if (fatal !== undefined) return cliError(fatal.kind ?? "api_error", `fatal error event: ${fatal.message}`);
  if (rules.stderrAuth?.test(proc.stderr) === true && proc.exitCode !== 0) {
    return cliError("auth_failure", `no session result; stderr says: ${firstLine(proc.stderr)}`);
  }
  const mapped = proc.exitCode === null ? undefined : rules.exitCodes?.[proc.exitCode];
  if (mapped !== undefined) {
    return cliError(
      mapped,
      `no session result; exit code ${proc.exitCode} means ${mapped}${proc.stderr.trim() ? `: ${firstLine(proc.stderr)}` : ""}`,
    );
  }
  if (proc.aborted) return cliError("cancelled", "the run was cancelled before the session produced a result");
  if (proc.timedOut) {
    const transient = facts.errors.filter((error) => !error.fatal);
    if (transient.length > 0 && transient.every((error) => NETWORK.test(error.message))) {
      return cliError(
        "network_unreachable",
        `deadline reached while the CLI kept retrying: ${transient.at(-1)!.message}`,
      );
    }
    return cliError("timeout", `deadline reached before a session result (${facts.events} event(s) seen)`);
  }
  if (facts.unknownEventTypes.length > 0 || facts.missingFields.length > 0) {
    return {
      trial_class: "format_drift",
      cli_error_kind: null,
      reason: `no recognised result event; ${describeDrift(facts)}`,
    };
  }
  if (facts.nonJsonLines > 0) {
    return {
      trial_class: "parse_failure",
      cli_error_kind: null,
      reason: `no result event and ${facts.nonJsonLines} non-JSON stdout line(s)`,
    };
  }
  if (facts.events > 0 && proc.exitCode === 0) {
    return {
      trial_class: "parse_failure",
      cli_error_kind: null,
      reason: `the stream ended after ${facts.events} event(s) without a result event (exit 0)`,
    };
  }
  const stderrNote = proc.stderr.trim() ? `; stderr: ${firstLine(proc.stderr)}` : "";
  return cliError("no_result", `exit code ${proc.exitCode ?? "none"} with no session result${stderrNote}`);
}

function describeDrift(facts: StreamFacts): string {
  const parts: string[] = [];
  if (facts.unknownEventTypes.length > 0) parts.push(`unknown event type(s) ${facts.unknownEventTypes.join(", ")}`);
  if (facts.missingFields.length > 0) parts.push(`missing field(s) ${facts.missingFields.join(", ")}`);
  return parts.join("; ");
}

function firstLine(text: string): string {
  const line =
    text
      .split("\n")
      .map((part) => part.trim())
      .find((part) => part.length > 0) ?? "";
  // oxlint-disable-next-line eslint/no-control-regex -- it strips ANSI colour codes: matching ESC is the point
  return line.replace(/\u001b\[[0-9;]*m/g, "").slice(0, 300);
}

/**
 * Tri-state safety detection shared by adapters: a structured signal first, then the adapter's phrase
 * table over the final assistant text, `not_detected` only when a clean terminal result was seen
 * (evidence that nothing stopped the model), and `unknown` otherwise. Never coerced.
 */
export function detectSafetyWith(facts: StreamFacts, phrases: readonly RegExp[]): SafetyDetection {
  const structured = facts.refusal ?? facts.safetySignal;
  if (structured !== null) return { state: "detected", signal: structured.slice(0, 500), source: "structured" };
  const text = facts.finalText ?? "";
  const phrase = phrases.find((pattern) => pattern.test(text));
  if (phrase !== undefined)
    return { state: "detected", signal: `phrase ${phrase.source}`.slice(0, 500), source: "phrase" };
  if (facts.terminal?.success === true) return { state: "not_detected", signal: null, source: null };
  return { state: "unknown", signal: null, source: null };
}

/** Refusal phrases common to current assistants; adapters extend this with their own. */
export const COMMON_REFUSAL_PHRASES: readonly RegExp[] = [
  /\bI(?:'m| am) (?:not able|unable) to (?:help|assist|comply) with\b/i,
  /\bI can(?:'|’)?t (?:help|assist) with (?:that|this)\b/i,
  /\bI cannot (?:help|assist|comply) with\b/i,
  /\bI (?:won(?:'|’)t|will not) (?:help|assist) with\b/i,
];

/** Mutable collector the per-adapter observers fill in. */
export class FactsCollector {
  events = 0;
  nonJsonLines = 0;
  readonly unknownEventTypes: string[] = [];
  readonly missingFields: string[] = [];
  terminal: StreamFacts["terminal"] = null;
  readonly errors: StreamError[] = [];
  refusal: string | null = null;
  safetySignal: string | null = null;
  finalText: string | null = null;
  costUsd: number | null = null;

  /**
   * Parses one line as a JSON object whose string `type` is one of `knownTypes`; anything else is
   * counted (non-JSON, a missing `type`, or an unknown type as drift) and gives null.
   */
  parse(line: string, knownTypes: ReadonlySet<string>): (Record<string, unknown> & { readonly type: string }) | null {
    if (line.trim() === "") return null;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.nonJsonLines += 1;
      return null;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      this.nonJsonLines += 1;
      return null;
    }
    this.events += 1;
    const event = value as Record<string, unknown>;
    if (typeof event.type !== "string") {
      this.missing("event.type");
      return null;
    }
    if (!knownTypes.has(event.type)) {
      this.unknownType(event.type);
      return null;
    }
    return event as Record<string, unknown> & { readonly type: string };
  }

  unknownType(type: string): void {
    if (!this.unknownEventTypes.includes(type)) this.unknownEventTypes.push(type);
  }

  missing(field: string): void {
    if (!this.missingFields.includes(field)) this.missingFields.push(field);
  }

  snapshot(): StreamFacts {
    return {
      events: this.events,
      nonJsonLines: this.nonJsonLines,
      unknownEventTypes: [...this.unknownEventTypes],
      missingFields: [...this.missingFields],
      terminal: this.terminal,
      errors: [...this.errors],
      refusal: this.refusal,
      safetySignal: this.safetySignal,
      finalText: this.finalText,
      costUsd: this.costUsd,
    };
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Picks `x.y.z` (with any pre-release suffix) out of a version command's output. */
export function parseSemver(output: string): string | null {
  const match = /\b(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)\b/.exec(output);
  return match === null ? null : match[1]!;
}
