import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { appendDurable, replaceFile } from "@eval/durable-fs";
import { ioError } from "@eval/errors";

/** Writes a whole output file (report, JUnit) atomically: a reader never sees half of it. */
export async function writeOutputFile(path: string, content: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await replaceFile(path, content);
  } catch (error) {
    throw ioError(error, "cannot write", path);
  }
}

/** Appends to a file others write too (GitHub's job summary file is appended to by every step). */
export async function appendOutputFile(path: string, content: string): Promise<void> {
  try {
    await appendDurable(path, content);
  } catch (error) {
    throw ioError(error, "cannot append to", path);
  }
}
