// The system-under-test kinds the runner ships: a program (`command:`) and a JS/TS module (`module:`).
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { blake3 } from "@noble/hashes/blake3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { EvalError } from "@eval/errors";
import { formatIssues, HarnessOutputSchema, safeParseWire, SUT_REQUEST_SCHEMA_VERSION } from "@eval/models";
import type { SutInvocation, SutOutput, SystemUnderTest } from "@eval/models";

const MAX_HASHED_FILE_BYTES = 4 * 1024 * 1024;

export const BENCH_INVOCATION_TAG_ENV = "EVALGATE_BENCH_INVOCATION_TAG";

/** A SUT stopped because its signal aborted (timeout or cost cap). */
export class SutAborted extends Error {
  override readonly name = "SutAborted";
}

/** `blake3:<hex>` over a domain tag and length-prefixed parts. */
export function digestOf(domain: string, parts: readonly (string | Uint8Array)[]): string {
  const hasher = blake3.create();
  for (const part of [domain, ...parts]) {
    const bytes = typeof part === "string" ? utf8ToBytes(part) : part;
    const length = new Uint8Array(8);
    new DataView(length.buffer).setBigUint64(0, BigInt(bytes.length));
    hasher.update(length);
    hasher.update(bytes);
  }
  return `blake3:${bytesToHex(hasher.digest())}`;
}

/** The canary seed a case's SUT receives: BLAKE3 of a domain tag and the pin, 64 hex characters. */
export function canarySeedFor(pin: string): string {
  return bytesToHex(blake3(utf8ToBytes(`evalgate.canary_seed.v1:${pin}`)));
}

/** Validates what a SUT returned: a JSON object whose `cost_usd`, if present, is a finite amount >= 0. */
export function checkSutOutput(value: unknown): SutOutput {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new TypeError("the SUT's output is not a JSON object");
  const parsed = safeParseWire(HarnessOutputSchema, value);
  if (!parsed.success) throw new TypeError(`the SUT's output is invalid: ${formatIssues(parsed.issues)}`);
  return parsed.data as SutOutput;
}

export interface CommandSutOptions {
  /** Resolves relative program paths in argv (default process.cwd()). */
  readonly cwd?: string;
  /** The SUT's environment (default: the harness's own, which a SUT such as an agent may need). */
  readonly env?: NodeJS.ProcessEnv;
  /** Overrides the computed digest (e.g. a release version of the program). */
  readonly digest?: string;
  /** stdout beyond this kills the SUT (default 16 MiB). */
  readonly maxStdoutBytes?: number;
}

/**
 * A program as a SUT. Per case it is started in the scratch workspace (its cwd) in its own process
 * group, with EVALGATE_BENCH_INVOCATION_TAG set, reads one SutRequest JSON document on stdin and
 * writes one JSON object on stdout. On abort (timeout, cost cap) the whole group is killed.
 * Arguments naming existing files are made absolute against `cwd`. The digest covers argv and the
 * bytes of every argument that names a file (the script itself); what that script loads in turn is
 * not followed: pass `digest` when it matters.
 */
export function commandSut(argv: readonly string[], options: CommandSutOptions = {}): SystemUnderTest {
  if (argv.length === 0 || argv[0] === "") throw new EvalError("EVAL_SUT_INVALID", "command SUT needs a program: command:<program> [args...]");
  const base = options.cwd ?? process.cwd();
  // The SUT runs in its scratch workspace, so arguments naming existing files (the program, its
  // script) are made absolute against `cwd` first.
  const isFile = (arg: string): boolean => arg !== "" && !arg.startsWith("-") && existsSync(resolve(base, arg)) && statSync(resolve(base, arg)).isFile();
  const resolved = argv.map((arg) => (isFile(arg) ? resolve(base, arg) : arg));
  const fileParts: (string | Uint8Array)[] = [];
  for (const arg of resolved) {
    if (!isFile(arg)) continue;
    // Scripts are hashed by content; a large file (an interpreter binary such as node itself) by its
    // size and mtime, so building a SUT never spends seconds hashing 100 MB.
    const info = statSync(arg);
    fileParts.push(`file:${arg}`, info.size <= MAX_HASHED_FILE_BYTES ? readFileSync(arg) : `size=${info.size};mtime=${info.mtimeMs}`);
  }
  const digest = options.digest ?? digestOf("evalgate.sut.command.v1", [...resolved.map((arg) => `arg:${arg}`), ...fileParts]);
  const maxStdout = options.maxStdoutBytes ?? 16 * 1024 * 1024;
  return {
    label: `command:${argv.join(" ")}`,
    digest,
    run(invocation) {
      return runCommand(resolved, invocation, { ...(options.env ?? process.env), [BENCH_INVOCATION_TAG_ENV]: invocation.invocationTag }, maxStdout);
    },
  };
}

function runCommand(argv: readonly string[], invocation: SutInvocation, env: NodeJS.ProcessEnv, maxStdout: number): Promise<SutOutput> {
  return new Promise((resolvePromise, reject) => {
    if (invocation.signal.aborted) {
      reject(new SutAborted("aborted before start"));
      return;
    }
    const child = spawn(argv[0]!, argv.slice(1), { cwd: invocation.workspacePath, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = "";
    let failure: Error | null = null;
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const onAbort = (): void => {
      failure ??= new SutAborted("aborted");
      killGroup();
    };
    invocation.signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      failure ??= new Error(`cannot start ${argv[0]}: ${error.message}`);
    });
    child.stdout.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxStdout) {
        failure ??= new Error(`stdout exceeded ${maxStdout} bytes`);
        killGroup();
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString("utf8");
    });
    child.stdin.on("error", () => {});
    child.stdin.end(
      JSON.stringify({
        schema_version: SUT_REQUEST_SCHEMA_VERSION,
        case: invocation.benchCase,
        workspace_path: invocation.workspacePath,
        canary_seed: invocation.canarySeed,
        invocation_tag: invocation.invocationTag,
        timeout_ms: Math.max(1, Math.round(invocation.timeoutMs)),
      }),
    );
    child.on("close", (code, signal) => {
      invocation.signal.removeEventListener("abort", onAbort);
      killGroup();
      if (failure !== null) return reject(failure);
      if (code !== 0) {
        const line = stderr.trim().split("\n").at(-1)?.slice(0, 300) ?? "";
        return reject(new Error(`${signal === null ? `exited ${code}` : `killed by ${signal}`}${line === "" ? "" : `: ${line}`}`));
      }
      let json: unknown;
      try {
        json = JSON.parse(Buffer.concat(stdout).toString("utf8"));
      } catch (error) {
        return reject(new Error(`stdout is not one JSON document (${(error as Error).message.slice(0, 160)})`));
      }
      try {
        resolvePromise(checkSutOutput(json));
      } catch (error) {
        reject(error as Error);
      }
    });
  });
}

export type SutFunction = (invocation: SutInvocation) => Promise<SutOutput> | SutOutput;

/**
 * A module's export as a SUT: `module:<path>#<export>` (export defaults to `default`). The export is
 * either a function of a SutInvocation or an object implementing SystemUnderTest. Runs in the
 * harness's process: the invocation tag reaches it as `invocation.invocationTag` (the process-wide
 * environment cannot hold one tag per concurrent case), and it must honour `invocation.signal`.
 * The digest covers the module file's bytes and the export name, not the files it imports.
 */
export async function moduleSut(specifier: string, options: { cwd?: string; digest?: string } = {}): Promise<SystemUnderTest> {
  const hash = specifier.lastIndexOf("#");
  const path = hash === -1 ? specifier : specifier.slice(0, hash);
  const exportName = hash === -1 || hash === specifier.length - 1 ? "default" : specifier.slice(hash + 1);
  if (path === "") throw new EvalError("EVAL_SUT_INVALID", `module SUT "${specifier}" names no file: use module:<path>#<export>`);
  const file = resolve(options.cwd ?? process.cwd(), path);
  if (!existsSync(file) || !statSync(file).isFile()) throw new EvalError("EVAL_SUT_INVALID", `module SUT file ${file} does not exist`);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new EvalError("EVAL_SUT_INVALID", `cannot import module SUT ${file}: ${(error as Error).message.split("\n")[0]}`, { cause: error });
  }
  const exported = module[exportName];
  const digest = options.digest ?? digestOf("evalgate.sut.module.v1", [readFileSync(file), `export:${exportName}`]);
  const label = `module:${path}#${exportName}`;
  if (typeof exported === "function") {
    const fn = exported as SutFunction;
    return { label, digest, run: async (invocation) => checkSutOutput(await fn(invocation)) };
  }
  if (exported !== null && typeof exported === "object" && typeof (exported as SystemUnderTest).run === "function") {
    const sut = exported as SystemUnderTest;
    return { label: typeof sut.label === "string" ? sut.label : label, digest: typeof sut.digest === "string" ? sut.digest : digest, run: async (invocation) => checkSutOutput(await sut.run(invocation)) };
  }
  const available = Object.keys(module).join(", ") || "(none)";
  throw new EvalError("EVAL_SUT_INVALID", `module SUT ${file} has no function export "${exportName}" (exports: ${available})`);
}
