// Exclusive create: the one policy for a file that must never replace another (a chain record, host_id).
import { randomBytes } from "node:crypto";
import { link, mkdir, open, unlink } from "node:fs/promises";
import { join } from "node:path";
import { syncDirectory } from "./replace.ts";

/**
 * Writes `data` to `dir/name` atomically and never over an existing file: the bytes go to a unique
 * temporary file in `stagingDir` (same filesystem), are fsynced, then hard-linked into place
 * (`link` fails with EEXIST instead of replacing), and the directory is fsynced so the new entry
 * survives a power cut. A crash at any point leaves either no file or the complete file; a stray
 * temporary file can only be left in `stagingDir`, never beside the target, and only by a crash: a
 * failed write (a full disk) removes its temporary file before it throws. Returns the path.
 *
 * Why not `open(..., "wx")` on the target: a crash mid-write would leave a torn file under the final name.
 */
export async function createFileExclusive(
  dir: string,
  name: string,
  data: string,
  options: { readonly mode: number; readonly stagingDir: string },
): Promise<string> {
  await mkdir(options.stagingDir, { recursive: true, mode: 0o700 });
  const temp = join(options.stagingDir, `.${name}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const target = join(dir, name);
  try {
    const handle = await open(temp, "wx", options.mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await link(temp, target);
  } finally {
    await unlink(temp).catch(() => {});
  }
  await syncDirectory(dir);
  return target;
}
