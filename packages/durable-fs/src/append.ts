// Durable append: the one policy for a log that only grows (a CI summary, a line log).
import { open } from "node:fs/promises";

/**
 * Appends `text` to `path` (created with `mode` if missing) in one write on an `O_APPEND` descriptor, so
 * concurrent appenders of whole lines do not interleave, then fsyncs it: once this returns, the text
 * survives a power cut. Errors are the system's, for the caller to name (`ioError`).
 */
export async function appendDurable(
  path: string,
  text: string,
  options: { readonly mode?: number } = {},
): Promise<void> {
  const handle = await open(path, "a", options.mode ?? 0o644);
  try {
    await handle.write(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
