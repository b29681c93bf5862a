import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { EvalError, ioError } from "@eval/errors";
import { createFileExclusive } from "@eval/durable-fs";
import { STATE_NAMES } from "@eval/state-layout";

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * This host's fingerprint: a random UUID kept in `<stateDir>/host_id` (mode 0600), made on first use.
 * Concurrent first uses agree: the file is created exclusively, and a loser reads the winner's.
 * A UUID rather than a hostname hash: it reveals nothing about the machine and survives renames.
 */
export async function getHostFingerprint(stateDir: string): Promise<string> {
  const path = join(stateDir, STATE_NAMES.hostId);
  const existing = await readHostId(path);
  if (existing !== null) return existing;
  try {
    await createFileExclusive(stateDir, STATE_NAMES.hostId, `${randomUUID()}\n`, { mode: 0o600, stagingDir: stateDir });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw ioError(error, "cannot create", path);
    }
  }
  const created = await readHostId(path);
  if (created === null) throw new Error(`host_id vanished after creation: ${path}`);
  return created;
}

async function readHostId(path: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new EvalError("EVAL_IO", `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const id = text.trim();
  if (!UUID_PATTERN.test(id)) {
    throw new EvalError("EVAL_IO", `${path} does not hold a host UUID (found "${id.slice(0, 40)}")`, {
      hint: "restore host_id from a backup; a new one starts a new per-host chain in a fresh state directory",
    });
  }
  return id;
}
