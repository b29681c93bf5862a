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

parentPort!.on("message", async (message: RunMessage | { readonly type: "abort" }) => {
  if (message.type === "abort") {
    controller?.abort(new Error("aborted"));
    return;
  }
  controller = new AbortController();
  try {
    const module = (await import(pathToFileURL(message.file).href)) as Record<string, unknown>;
    const exported = module[message.exportName] as ((invocation: unknown) => unknown) | { run(invocation: unknown): unknown };
    const invocation = { ...message.invocation, signal: controller.signal };
    const output = typeof exported === "function" ? await exported(invocation) : await exported.run(invocation);
    parentPort!.postMessage({ type: "ok", output });
  } catch (error) {
    const name = error instanceof Error ? error.name : typeof error;
    parentPort!.postMessage({ type: "error", name, message: error instanceof Error ? error.message : String(error) });
  }
});
