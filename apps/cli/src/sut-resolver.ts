import { join } from "node:path";
import { EvalError } from "@eval/errors";
import type { WarningSink } from "@eval/errors";
import type { SystemUnderTest } from "@eval/models";
import type { SutChooser } from "@eval/runner";
import type { AgentSutOptions } from "./agent-suts.ts";

export interface SutResolverOptions extends AgentSutOptions {
  /** Resolves relative paths in `module:` and `command:` specs. */
  readonly cwd: string;
  readonly onWarning: WarningSink;
  /** Give a sandboxed `command:` SUT the host's network. */
  readonly sutNetwork?: boolean;
  /** More paths a sandboxed `command:` SUT may read. */
  readonly sutRead?: readonly string[];
  /** More paths a `command:` SUT must never see, besides the bench and the state directory (`--cache-dir`, its key). */
  readonly hideFromSut?: readonly string[];
}

/**
 * Splits a `command:` spec into argv: whitespace separates words, single or double quotes group
 * them, a backslash escapes the next character. No variables, globs or other shell expansion.
 */
export function splitCommand(text: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quote !== null) {
      if (char === quote) quote = null;
      else if (char === "\\" && quote === '"' && i + 1 < text.length) current += text[++i];
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (char === "\\" && i + 1 < text.length) {
      current += text[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (quote !== null) throw new EvalError("EVAL_SUT_INVALID", `unterminated ${quote} quote in command SUT: ${text}`);
  if (inWord) words.push(current);
  return words;
}

/**
 * The SUT for a `--sut` spec: `module:<path>#<export>`, `command:<argv>`, `replay`, `cli:<adapter>`.
 * Libraries load lazily: the agent adapters only for `replay`/`cli:`.
 */
export async function resolveSut(spec: string, options: SutResolverOptions): Promise<SystemUnderTest> {
  if (spec.startsWith("module:")) {
    const { moduleSut } = await import("@eval/runner");
    return moduleSut(spec.slice("module:".length), { cwd: options.cwd });
  }
  if (spec.startsWith("command:")) {
    const argv = splitCommand(spec.slice("command:".length));
    if (argv.length === 0) throw new EvalError("EVAL_SUT_INVALID", "command SUT needs a program: --sut 'command:<program> [args...]'");
    const { commandSut } = await import("@eval/runner");
    const sandbox = options.sandbox ?? "bwrap";
    return commandSut(argv, {
      cwd: options.cwd,
      sandbox,
      network: options.sutNetwork === true,
      // In the sandbox the SUT gets an allowlisted environment, never the harness's; and whatever its
      // project holds, the bench and evalgate's state are hidden from it.
      ...(sandbox === "none" ? { env: options.env as NodeJS.ProcessEnv } : {}),
      hide: [options.benchRoot, options.stateDir, ...(options.hideFromSut ?? [])],
      readable: options.sutRead ?? [],
      // Content digests of the files it can read, reused while their inode, size, ctime and mtime hold.
      digestCachePath: join(options.stateDir, "file-digests.json"),
    });
  }
  if (spec === "replay" || spec.startsWith("cli:")) {
    const { resolveAgentSut } = await import("./agent-suts.ts");
    const sut = await resolveAgentSut(spec, options);
    if (sut !== null) return sut;
  }
  throw new EvalError("EVAL_SUT_INVALID", `unknown SUT spec "${spec}"`);
}

/**
 * The SUT spec when `--sut` is not given: `replay` when any selected case has a cassette (or none is
 * selected: the run then says EVAL_NO_CASES_SELECTED); otherwise EVAL_SUT_INVALID.
 */
export function defaultSutSpec(taskClassName: string, cases: ReadonlyArray<{ readonly cassette_path: string | null }>): string {
  if (cases.length === 0 || cases.some((c) => c.cassette_path !== null)) return "replay";
  throw new EvalError("EVAL_SUT_INVALID", `no --sut given and no selected case of ${taskClassName} has a cassette to replay`, {
    hint: "pass --sut module:<path>#<export> | command:<argv> | cli:<adapter>",
  });
}

/** For a run without `--sut`: chooses the default from the cases the run selected (the run loads them once). */
export function defaultSutChooser(options: SutResolverOptions): SutChooser {
  return async ({ taskClass, cases }) => resolveSut(defaultSutSpec(taskClass.name, cases), options);
}

/**
 * The SUT of a run with `--sut <spec>`. A `cli:<adapter>` agent takes the task class's `agent` declaration
 * (the files a solution edits, the adapter's model and flags): resolved once the run has loaded the class,
 * or, for a shard (whose SUT is part of its plan), after loading it here.
 */
export async function runSut(spec: string, options: SutResolverOptions, shard: { readonly taskClass: string } | null): Promise<SystemUnderTest | SutChooser> {
  if (!spec.startsWith("cli:")) return resolveSut(spec, options);
  if (shard === null) return async ({ taskClass }) => resolveSut(spec, { ...options, taskAgent: taskClass.agent });
  const { loadTaskClass, TaskClassRegistry } = await import("@eval/registry");
  const taskClass = await loadTaskClass(shard.taskClass, { benchRoot: options.benchRoot, registry: new TaskClassRegistry(), onWarning: options.onWarning });
  return resolveSut(spec, { ...options, taskAgent: taskClass.agent });
}
