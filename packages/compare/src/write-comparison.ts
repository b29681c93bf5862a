import { ComparisonSchema, parseWire } from "@eval/models";
import type { Comparison } from "@eval/models";
import { writeRecommendation } from "@eval/state-layout";

/**
 * Writes a comparison beside the verdicts, `<recommendationsDir>/<compared_at>-<task_class>-compare-<8 hex>.json`,
 * through the state directory's one recommendation writer (atomic, durable, mode 0600). Returns the path.
 * Advisory: it never changes a tier.
 */
export async function writeComparison(comparison: Comparison, recommendationsDir: string): Promise<string> {
  const valid = parseWire(ComparisonSchema, comparison);
  return writeRecommendation(recommendationsDir, {
    at: valid.compared_at,
    taskClass: valid.task_class,
    label: "compare",
    what: "comparison",
    document: valid,
  });
}
