// What every system under test shares (digests, the canary seed, output checks), and the `module:` SUT.
import { existsSync, readFileSync, statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { blake3, framedDigest, toHex } from "@eval/hashing";
import { EvalError } from "@eval/errors";
import { formatIssues, HarnessOutputSchema, safeParseWire } from "@eval/models";
import type { SutInvocation, SutOutput, SystemUnderTest } from "@eval/models";

export const BENCH_INVOCATION_TAG_ENV = "EVALGATE_BENCH_INVOCATION_TAG";

/** A SUT stopped because its signal aborted (timeout or cost cap). */
export class SutAborted extends Error {
  override readonly name = "SutAborted";
}

/** The runner's domain-separated digests (8-byte length prefixes): @eval/hashing's framedDigest. */
export { framedDigest as digestOf };

/** The canary seed a case's SUT receives: BLAKE3 of a domain tag and the pin, 64 hex characters. */
export function canarySeedFor(pin: string): string {
  return toHex(blake3(`evalgate.canary_seed.v1:${pin}`));
}

/** Validates what a SUT returned: a JSON object whose `cost_usd`, if present, is a finite amount >= 0. */
export function checkSutOutput(value: unknown): SutOutput {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new TypeError("the SUT's output is not a JSON object");
  const parsed = safeParseWire(HarnessOutputSchema, value);
  if (!parsed.success) throw new TypeError(`the SUT's output is invalid: ${formatIssues(parsed.issues)}`);
  return parsed.data as SutOutput;
}

export type SutFunction = (invocation: SutInvocation) => Promise<SutOutput> | SutOutput;

/** Runs a module SUT's export in a worker per case, reused across cases, terminated at a deadline or abort. */
class ModuleSutWorkers {
  readonly #idle: Worker[] = [];
  readonly #file: string;
  readonly #exportName: string;

  constructor(file: string, exportName: string) {
    this.#file = file;
    this.#exportName = exportName;
  }

  async run(invocation: SutInvocation): Promise<SutOutput> {
    if (invocation.signal.aborted) throw new SutAborted("aborted before start");
    // stdout and stderr piped to the harness (not inherited): what the SUT prints is recorded per case.
    const worker = this.#idle.pop() ?? new Worker(new URL(`./module-sut-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url), { stdout: true, stderr: true });
    worker.ref();
    const { signal, recordStreams, ...data } = invocation;
    const streams = collectStreams(worker);
    try {
      const output = await new Promise<unknown>((resolvePromise, reject) => {
        const onAbort = (): void => reject(new SutAborted("aborted"));
        signal.addEventListener("abort", onAbort, { once: true });
        worker.once("error", reject);
        worker.once("message", (message: { type: "ok"; output: unknown } | { type: "error"; name: string; message: string }) => {
          signal.removeEventListener("abort", onAbort);
          worker.removeListener("error", reject);
          if (message.type === "ok") resolvePromise(message.output);
          else reject(Object.assign(new Error(message.message), { name: message.name }));
        });
        worker.postMessage({ type: "run", file: this.#file, exportName: this.#exportName, invocation: data });
      });
      recordStreams?.(await streams.end());
      worker.unref();
      this.#idle.push(worker);
      return checkSutOutput(output);
    } catch (error) {
      recordStreams?.(await streams.end());
      // Past its deadline or failed: this worker may still be running the SUT's code; it is not reused.
      await worker.terminate();
      throw error;
    }
  }
}

/** Keeps at most this much of each stream a module SUT's worker prints during one case. */
const MODULE_STREAM_KEEP_BYTES = 1024 * 1024;

/**
 * Collects what a worker prints to stdout and stderr from now until `end()`, which first lets output
 * already written by the worker's thread arrive (it is delivered asynchronously), then stops listening.
 */
function collectStreams(worker: Worker): { end(): Promise<{ stdout: Buffer; stderr: Buffer }> } {
  const kept = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  const sizes = { stdout: 0, stderr: 0 };
  const listener = (name: "stdout" | "stderr") => (chunk: Buffer): void => {
    if (sizes[name] < MODULE_STREAM_KEEP_BYTES) kept[name].push(chunk.subarray(0, MODULE_STREAM_KEEP_BYTES - sizes[name]));
    sizes[name] += chunk.length;
  };
  const onStdout = listener("stdout");
  const onStderr = listener("stderr");
  worker.stdout.on("data", onStdout);
  worker.stderr.on("data", onStderr);
  return {
    async end() {
      await new Promise((resolveTick) => setImmediate(resolveTick));
      worker.stdout.off("data", onStdout);
      worker.stderr.off("data", onStderr);
      return { stdout: Buffer.concat(kept.stdout), stderr: Buffer.concat(kept.stderr) };
    },
  };
}

/**
 * A module's export as a SUT: `module:<path>#<export>` (export defaults to `default`). The export is
 * either a function of a SutInvocation or an object implementing SystemUnderTest. It is trusted code
 * (it runs inside the harness's process, with the harness's rights), but its deadline is enforced: each
 * case runs in a worker thread that is terminated at the deadline, even in a loop that never yields.
 * It receives its invocation as structured data plus a fresh `signal`; the invocation tag reaches it as
 * `invocation.invocationTag`. The digest covers the module file's bytes and the export name, not the
 * files it imports.
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
  const digest = options.digest ?? framedDigest("evalgate.sut.module.v1", [readFileSync(file), `export:${exportName}`]);
  const label = `module:${path}#${exportName}`;
  const workers = new ModuleSutWorkers(file, exportName);
  const run = (invocation: SutInvocation): Promise<SutOutput> => workers.run(invocation);
  if (typeof exported === "function") return { label, digest, isolation: "in-process", run };
  if (exported !== null && typeof exported === "object" && typeof (exported as SystemUnderTest).run === "function") {
    const sut = exported as SystemUnderTest;
    return { label: typeof sut.label === "string" ? sut.label : label, digest: typeof sut.digest === "string" ? sut.digest : digest, isolation: "in-process", run };
  }
  const available = Object.keys(module).join(", ") || "(none)";
  throw new EvalError("EVAL_SUT_INVALID", `module SUT ${file} has no function export "${exportName}" (exports: ${available})`);
}
