// The `--sut` grammar and the one rule for a run's or a plan's default SUT. A spec is persisted in plan
// files (`sut.spec`), so whoever reads a plan can parse it here, without the command line.
import { EvalError } from "@eval/errors";
import { stateLayout } from "@eval/state-layout";
import type { BenchCase, SystemUnderTest } from "@eval/models";
import type { TaskClass } from "@eval/registry";
import { commandSut } from "./command-sut.ts";
import { sandboxLimits } from "./sandbox-limits.ts";
import type { LimitOverrides } from "./sandbox-limits.ts";
import type { SandboxMode } from "./rubric-isolation.ts";
import type { SutChooser } from "./run-types.ts";
import { moduleSut } from "./sut.ts";

/**
 * A parsed spec: `module:<path>#<export>`, `command:<argv>`, or an agent kind by name: `<kind>` or
 * `<kind>:<argument>` (`replay`, `cli:claude-code`). Which agent kinds exist is not the grammar's
 * business: they are registered with the resolver (`SutResolveOptions.agents`).
 */
export type ParsedSutSpec =
  | { readonly kind: "module"; readonly specifier: string }
  | { readonly kind: "command"; readonly argv: readonly string[] }
  | { readonly kind: "agent"; readonly name: string; readonly argument: string | null };

const AGENT_KIND = /^[a-z][a-z0-9-]*$/;

/** Parses a `--sut` spec; one EVAL_SUT_INVALID line for anything the grammar does not accept. */
export function parseSutSpec(spec: string): ParsedSutSpec {
  if (spec.startsWith("module:")) return { kind: "module", specifier: spec.slice("module:".length) };
  if (spec.startsWith("command:")) {
    const argv = splitCommand(spec.slice("command:".length));
    if (argv.length === 0)
      throw new EvalError("EVAL_SUT_INVALID", "command SUT needs a program: --sut 'command:<program> [args...]'");
    return { kind: "command", argv };
  }
  const colon = spec.indexOf(":");
  const name = colon === -1 ? spec : spec.slice(0, colon);
  if (!AGENT_KIND.test(name)) throw unknownSpec(spec, []);
  return { kind: "agent", name, argument: colon === -1 ? null : spec.slice(colon + 1) };
}

function unknownSpec(spec: string, agentKinds: readonly string[]): EvalError {
  const kinds = ["module:<path>#<export>", "command:<argv>", ...agentKinds];
  return new EvalError("EVAL_SUT_INVALID", `unknown SUT spec "${spec.slice(0, 200)}"`, {
    hint: `pass --sut ${kinds.join(" | ")}`,
  });
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
 * The SUT spec when none is given, for `run` and `plan` alike: `replay` when any selected case has a
 * cassette (or none is selected: the run then says EVAL_NO_CASES_SELECTED); otherwise EVAL_SUT_INVALID.
 */
export function defaultSutSpec(
  taskClassName: string,
  cases: ReadonlyArray<{ readonly cassette_path: string | null }>,
): string {
  if (cases.length === 0 || cases.some((c) => c.cassette_path !== null)) return "replay";
  throw new EvalError(
    "EVAL_SUT_INVALID",
    `no --sut given and no selected case of ${taskClassName} has a cassette to replay`,
    {
      hint: "pass --sut module:<path>#<export> | command:<argv> | cli:<adapter>",
    },
  );
}

/** What an agent kind's factory gets: the spec's argument (`claude-code` in `cli:claude-code`) and the loaded task class. */
export interface AgentSutRequest {
  readonly spec: string;
  readonly argument: string | null;
  readonly taskClass: TaskClass;
}

/** Builds the SUT of one agent kind; throws an EvalError when the spec's argument or the setup is wrong. */
export type AgentSutFactory = (request: AgentSutRequest) => Promise<SystemUnderTest>;

export interface SutResolveOptions {
  /** Resolves relative paths in `module:` and `command:` specs. */
  readonly cwd: string;
  /** The bench root and the state directory: a `command:` SUT never sees either. */
  readonly benchRoot: string;
  readonly stateDir: string;
  /** More paths a `command:` SUT must never see (a `--cache-dir` outside the state directory, its key). */
  readonly hide?: readonly string[];
  /** More paths a sandboxed `command:` SUT may read. */
  readonly readable?: readonly string[];
  /** Give a sandboxed `command:` SUT the host's network. */
  readonly network?: boolean;
  /** A sandboxed `command:` SUT's limits set for this run (`--sut-pids`, `--sut-memory`, `--sut-disk`), over the task class's. */
  readonly limits?: LimitOverrides;
  /** Default `bwrap`. */
  readonly sandbox?: SandboxMode;
  /** The harness's environment: a `command:` SUT gets it only without the sandbox. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Agent kinds by name (`replay`, `cli`); an agent spec whose kind is not here is refused. */
  readonly agents?: Readonly<Record<string, AgentSutFactory>>;
}

/**
 * The SUT a spec names. In the sandbox a `command:` SUT gets an allowlisted environment, never the
 * harness's; and whatever its project holds, the bench and the state directory are hidden from it.
 */
export async function resolveSutSpec(
  spec: string,
  taskClass: TaskClass,
  options: SutResolveOptions,
): Promise<SystemUnderTest> {
  const parsed = parseSutSpec(spec);
  if (parsed.kind === "module") return moduleSut(parsed.specifier, { cwd: options.cwd });
  if (parsed.kind === "command") {
    const sandbox = options.sandbox ?? "bwrap";
    return commandSut(parsed.argv, {
      cwd: options.cwd,
      sandbox,
      network: options.network === true,
      ...(sandbox === "none" ? { env: options.env as NodeJS.ProcessEnv } : {}),
      hide: [options.benchRoot, options.stateDir, ...(options.hide ?? [])],
      readable: options.readable ?? [],
      limits: sandboxLimits(taskClass.limits?.sut, options.limits),
      limitsInDigest: limitsInDigest(options.limits),
      // Content digests of the files it can read, reused while their inode, size, ctime and mtime hold.
      digestCachePath: stateLayout(options.stateDir).fileDigests,
    });
  }
  const agents = options.agents ?? {};
  const factory = Object.hasOwn(agents, parsed.name) ? agents[parsed.name] : undefined;
  if (factory === undefined) throw unknownSpec(spec, Object.keys(agents));
  return factory({ spec, argument: parsed.argument, taskClass });
}

/** The SUT spec a run or plan uses: the given one, else the default rule over the cases it selected. */
export function chosenSutSpec(spec: string | undefined, taskClass: TaskClass, cases: readonly BenchCase[]): string {
  return spec ?? defaultSutSpec(taskClass.name, cases);
}

/**
 * A run's SUT from a spec (undefined: the default rule), resolved once the run has loaded the task class
 * and selected its cases (an agent needs the class's `agent` declaration; the default needs the cases).
 */
export function sutFromSpec(spec: string | undefined, options: SutResolveOptions): SutChooser {
  return async ({ taskClass, cases }) => resolveSutSpec(chosenSutSpec(spec, taskClass, cases), taskClass, options);
}

/** The flags' limits as the SUT's digest keys them (named as the sandbox names them). */
function limitsInDigest(flags: LimitOverrides | undefined): {
  pids?: number;
  memoryBytes?: number;
  diskBytes?: number;
} {
  return {
    ...(flags?.pids === undefined ? {} : { pids: flags.pids }),
    ...(flags?.memory === undefined ? {} : { memoryBytes: flags.memory }),
    ...(flags?.disk === undefined ? {} : { diskBytes: flags.disk }),
  };
}
