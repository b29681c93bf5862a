import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { PromotionVerdictSchema, parseWire } from "@eval/models";
import type { PromotionVerdict } from "@eval/models";
import { ioError } from "@eval/errors";
import writeFileAtomic from "write-file-atomic";
import { sha256Hex } from "@eval/hashing";

/**
 * Writes a verdict to `<recommendationsDir>/<evaluated_at>-<task_class>-<target_tier>-<8 hex>.json`
 * (the hex is from the verdict's bytes, so two verdicts in one millisecond do not collide), atomically
 * (write-file-atomic: temp file, fsync, rename), mode 0600. Returns the path.
 */
export async function writeVerdict(verdict: PromotionVerdict, recommendationsDir: string): Promise<string> {
  const valid = parseWire(PromotionVerdictSchema, verdict);
  const text = `${JSON.stringify(valid, null, 2)}\n`;
  const short = sha256Hex(text).slice(0, 8);
  const path = join(recommendationsDir, `${valid.evaluated_at.replaceAll(":", "-")}-${valid.task_class}-${valid.target_tier}-${short}.json`);
  try {
    await mkdir(recommendationsDir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(path, text, { mode: 0o600 });
  } catch (error) {
    throw ioError(error, "cannot write the verdict", path);
  }
  return path;
}
