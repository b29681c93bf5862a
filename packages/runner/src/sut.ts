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

/** A sandboxed SUT program hit its process-count, memory or disk limit: the case ends as `sut.resource_limit`. */
export class SutResourceLimit extends Error {
  override readonly name = "SutResourceLimit";
  readonly failure_mode = "sut.resource_limit";
}

/** The runner's domain-separated digests (8-byte length prefixes): @eval/hashing's framedDigest. */
export { framedDigest as digestOf };

/** The canary seed a case's SUT receives: BLAKE3 of a domain tag and the pin, 64 hex characters. */
export function canarySeedFor(pin: string): string {
  return toHex(blake3(`evalgate.canary_seed.v1:${pin}`));
}

/** Validates what a SUT returned: a JSON object whose `cost_usd`, if present, is a finite amount >= 0. */
export function checkSutOutput(value: unknown): SutOutput {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new TypeError("the SUT's output is not a JSON object");
  const parsed = safeParseWire(HarnessOutputSchema, value);
  if (!parsed.success) throw new TypeError(`the SUT's output is invalid: ${formatIssues(parsed.issues)}`);
  return parsed.data as SutOutput;
}

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
    const worker =
      this.#idle.pop() ??
      new Worker(new URL(`./module-sut-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url));
    worker.ref();
    // Only what can cross to the worker; a module SUT is not harness code, so it gets no meter recorder.
    const { signal, recordStreams, recordMetered: _notForModules, ...data } = invocation;
    try {
      const output = await new Promise<unknown>((resolvePromise, reject) => {
        const onAbort = (): void => reject(new SutAborted("aborted"));
        signal.addEventListener("abort", onAbort, { once: true });
        worker.once("error", reject);
        worker.once("message", (message: WorkerReply) => {
          signal.removeEventListener("abort", onAbort);
          worker.removeListener("error", reject);
          // What the SUT's code printed, captured in its worker: recorded also when it threw.
          recordStreams?.(message.streams);
          if (message.type === "ok") resolvePromise(message.output);
          else reject(Object.assign(new Error(message.message), { name: message.name }));
        });
        worker.postMessage({ type: "run", file: this.#file, exportName: this.#exportName, invocation: data });
      });
      worker.unref();
      this.#idle.push(worker);
      return checkSutOutput(output);
    } catch (error) {
      // Past its deadline or failed: this worker may still be running the SUT's code; it is not reused.
      await worker.terminate();
      throw error;
    }
  }
}

/** The worker's answer for one case, with what the SUT's code wrote to stdout and stderr meanwhile. */
type WorkerReply = ({ type: "ok"; output: unknown } | { type: "error"; name: string; message: string }) & {
  streams: { stdout: string; stderr: string };
};

/**
 * A module's export as a SUT: `module:<path>#<export>` (export defaults to `default`). The export is
 * either a function of a SutInvocation or an object implementing SystemUnderTest. It is trusted code
 * (it runs inside the harness's process, with the harness's rights), but its deadline is enforced: each
 * case runs in a worker thread that is terminated at the deadline, even in a loop that never yields.
 * It receives its invocation as structured data plus a fresh `signal`; the invocation tag reaches it as
 * `invocation.invocationTag`. The digest covers the module file's bytes and the export name, not the
 * files it imports.
 */
export async function moduleSut(
  specifier: string,
  options: { cwd?: string; digest?: string } = {},
): Promise<SystemUnderTest> {
  const hash = specifier.lastIndexOf("#");
  const path = hash === -1 ? specifier : specifier.slice(0, hash);
  const exportName = hash === -1 || hash === specifier.length - 1 ? "default" : specifier.slice(hash + 1);
  if (path === "")
    throw new EvalError("EVAL_SUT_INVALID", `module SUT "${specifier}" names no file: use module:<path>#<export>`);
  const file = resolve(options.cwd ?? process.cwd(), path);
  if (!existsSync(file) || !statSync(file).isFile())
    throw new EvalError("EVAL_SUT_INVALID", `module SUT file ${file} does not exist`);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new EvalError(
      "EVAL_SUT_INVALID",
      `cannot import module SUT ${file}: ${(error as Error).message.split("\n")[0]}`,
      { cause: error },
    );
  }
  const exported = module[exportName];
  const digest = options.digest ?? framedDigest("evalgate.sut.module.v1", [readFileSync(file), `export:${exportName}`]);
  const label = `module:${path}#${exportName}`;
  const workers = new ModuleSutWorkers(file, exportName);
  const run = (invocation: SutInvocation): Promise<SutOutput> => workers.run(invocation);
  if (typeof exported === "function") return { label, digest, isolation: "in-process", run };
  if (exported !== null && typeof exported === "object" && typeof (exported as SystemUnderTest).run === "function") {
    const sut = exported as SystemUnderTest;
    return {
      label: typeof sut.label === "string" ? sut.label : label,
      digest: typeof sut.digest === "string" ? sut.digest : digest,
      isolation: "in-process",
      run,
    };
  }
  const available = Object.keys(module).join(", ") || "(none)";
  throw new EvalError(
    "EVAL_SUT_INVALID",
    `module SUT ${file} has no function export "${exportName}" (exports: ${available})`,
  );
}
