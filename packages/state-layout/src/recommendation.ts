// The one writer of `recommendations/`: verdicts and comparisons, each in its own file, never replaced.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { replaceFile } from "@eval/durable-fs";
import { ioError } from "@eval/errors";
import { sha256Hex } from "@eval/hashing";

/** What names a recommendation file: `<at>-<task class>-<label>-<8 hex>.json`. */
export interface Recommendation {
  /** An ISO timestamp (`evaluated_at`, `compared_at`); colons become dashes in the file name. */
  readonly at: string;
  readonly taskClass: string;
  /** The target tier of a verdict, `compare` for a comparison. */
  readonly label: string;
  /** Named in the error line ("cannot write the verdict"). */
  readonly what: string;
  /** The document, already validated by its writer. */
  readonly document: unknown;
}

/**
 * Writes a verdict or a comparison to `<recommendationsDir>/<at>-<task class>-<label>-<8 hex>.json` (the hex
 * is from the document's bytes, so two in one millisecond do not collide), atomically and durably, mode
 * 0600, in a directory of mode 0700. Returns the path. Advisory: nothing here changes a tier.
 */
export async function writeRecommendation(recommendationsDir: string, recommendation: Recommendation): Promise<string> {
  const text = `${JSON.stringify(recommendation.document, null, 2)}\n`;
  const name = `${recommendation.at.replaceAll(":", "-")}-${recommendation.taskClass}-${recommendation.label}-${sha256Hex(text).slice(0, 8)}.json`;
  const path = join(recommendationsDir, name);
  try {
    await mkdir(recommendationsDir, { recursive: true, mode: 0o700 });
    await replaceFile(path, text, { mode: 0o600 });
  } catch (error) {
    throw ioError(error, `cannot write the ${recommendation.what}`, path);
  }
  return path;
}
