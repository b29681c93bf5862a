import { PromotionVerdictSchema, parseWire } from "@eval/models";
import type { PromotionVerdict } from "@eval/models";
import { writeRecommendation } from "@eval/state-layout";

/**
 * Writes a verdict to `<recommendationsDir>/<evaluated_at>-<task_class>-<target_tier>-<8 hex>.json`
 * through the state directory's one recommendation writer (atomic, durable, mode 0600). Returns the path.
 */
export async function writeVerdict(verdict: PromotionVerdict, recommendationsDir: string): Promise<string> {
  const valid = parseWire(PromotionVerdictSchema, verdict);
  return writeRecommendation(recommendationsDir, {
    at: valid.evaluated_at,
    taskClass: valid.task_class,
    label: valid.target_tier,
    what: "verdict",
    document: valid,
  });
}
