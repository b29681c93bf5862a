// The worker a `module:` SUT runs in (one case at a time): the harness's thread stays free, so a SUT that
// loops without yielding is still stopped at its deadline (the worker is terminated). Dependency-free:
// it is started directly by Node, from src (type stripping) or dist.
import { parentPort } from "node:worker_threads";
import { pathToFileURL } from "node:url";

interface RunMessage {
  readonly type: "run";
  readonly file: string;
  readonly exportName: string;
  readonly invocation: Record<string, unknown>;
}

let controller: AbortController | null = null;

/** At most this much of each stream is kept per case. */
const KEEP_BYTES = 1024 * 1024;

/**
 * Captures what the SUT's code writes to process.stdout and process.stderr (console.* included) until
 * `end()`, instead of passing it on: the harness records it per case. (Piping a worker's stdio to the
 * parent instead keeps the parent's event loop alive after the worker is unref'd.)
 */
function captureStreams(): { end(): { stdout: string; stderr: string } } {
  const kept = { stdout: "", stderr: "" };
  const originals = { stdout: process.stdout.write, stderr: process.stderr.write };
  for (const name of ["stdout", "stderr"] as const) {
    process[name].write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      if (kept[name].length < KEEP_BYTES)
        kept[name] += (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")).slice(
          0,
          KEEP_BYTES - kept[name].length,
        );
      const callback = rest.find((arg): arg is () => void => typeof arg === "function");
      callback?.();
      return true;
    }) as typeof process.stdout.write;
  }
  return {
    end() {
      process.stdout.write = originals.stdout;
      process.stderr.write = originals.stderr;
      return kept;
    },
  };
}

parentPort!.on("message", async (message: RunMessage | { readonly type: "abort" }) => {
  if (message.type === "abort") {
    controller?.abort(new Error("aborted"));
    return;
  }
  controller = new AbortController();
  const streams = captureStreams();
  try {
    const module = (await import(pathToFileURL(message.file).href)) as Record<string, unknown>;
    const exported = module[message.exportName] as
      ((invocation: unknown) => unknown) | { run(invocation: unknown): unknown };
    const invocation = { ...message.invocation, signal: controller.signal };
    const output = typeof exported === "function" ? await exported(invocation) : await exported.run(invocation);
    parentPort!.postMessage({ type: "ok", output, streams: streams.end() });
  } catch (error) {
    const name = error instanceof Error ? error.name : typeof error;
    parentPort!.postMessage({
      type: "error",
      name,
      message: error instanceof Error ? error.message : String(error),
      streams: streams.end(),
    });
  }
});
