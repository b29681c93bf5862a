// A small real file system for storage-fault tests: a tmpfs of a few MiB that a test fills up, or
// remounts read-only. Needs root (mount); where it cannot mount, `mountTmpfs` says why, for `it.skip`.
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Tmpfs {
  readonly path: string;
  /** Fills the file system up to `leaveBytes` of free space (with `<path>/.filler`); `free()` removes the filler. */
  fill(leaveBytes?: number): void;
  free(): void;
  /** Remounts it read-only (true) or read-write (false). */
  readOnly(on: boolean): void;
  unmount(): void;
}

/** A fresh tmpfs of `sizeKiB`, or the reason none can be mounted here. */
export function mountTmpfs(sizeKiB: number): Tmpfs | { readonly skip: string } {
  if (process.getuid?.() !== 0) return { skip: "mounting a tmpfs needs root" };
  const path = mkdtempSync(join(tmpdir(), "evalgate-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKiB}k,mode=0755`, "tmpfs", path], { stdio: "pipe" });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    return { skip: `mount -t tmpfs failed here: ${(error as Error).message.split("\n")[0]}` };
  }
  const filler = join(path, ".filler");
  return {
    path,
    fill(leaveBytes = 0) {
      const fd = openSync(filler, "a");
      try {
        const chunk = Buffer.alloc(4096, 0x78);
        for (;;) {
          const { bavail, bsize } = statfsSync(path);
          const room = bavail * bsize - leaveBytes;
          if (room <= 0) break;
          try {
            writeSync(fd, chunk, 0, Math.min(chunk.length, room));
          } catch {
            break;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    readOnly(on) {
      execFileSync("mount", ["-o", `remount,${on ? "ro" : "rw"}`, path], { stdio: "pipe" });
    },
    unmount() {
      execFileSync("umount", ["-l", path], { stdio: "pipe" });
      rmSync(path, { recursive: true, force: true });
    },
  };
}
