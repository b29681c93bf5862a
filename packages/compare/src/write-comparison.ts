import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ioError } from "@eval/errors";
import { sha256Hex } from "@eval/hashing";
import { ComparisonSchema, parseWire } from "@eval/models";
import type { Comparison } from "@eval/models";
import writeFileAtomic from "write-file-atomic";

/**
 * Writes a comparison beside the verdicts, `<recommendationsDir>/<compared_at>-<task_class>-compare-<8 hex>.json`,
 * atomically (temp file, fsync, rename), mode 0600. Returns the path. Advisory: it never changes a tier.
 */
export async function writeComparison(comparison: Comparison, recommendationsDir: string): Promise<string> {
  const valid = parseWire(ComparisonSchema, comparison);
  const text = `${JSON.stringify(valid, null, 2)}\n`;
  const short = sha256Hex(text).slice(0, 8);
  const path = join(recommendationsDir, `${valid.compared_at.replaceAll(":", "-")}-${valid.task_class}-compare-${short}.json`);
  try {
    await mkdir(recommendationsDir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(path, text, { mode: 0o600 });
  } catch (error) {
    throw ioError(error, "cannot write the comparison", path);
  }
  return path;
}
