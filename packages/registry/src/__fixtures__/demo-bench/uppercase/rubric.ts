import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runRubric, type Rubric } from "@eval/rubric-protocol";

const rubric: Rubric = {
  score(benchCase, _harnessOutput, context) {
    const expected = readFileSync(join(benchCase.expected_path, "text.txt"), "utf8");
    const actual = context.workspacePath === null ? "" : readFileSync(join(context.workspacePath, "text.txt"), "utf8");
    const exact = actual === expected;
    return {
      passed: exact,
      score: exact ? 1 : 0,
      breakdown: { exact_match: exact ? 1 : 0, length_kept: actual.length === expected.length ? 1 : 0 },
      failure_modes: exact ? [] : [{ code: "wrong_text", severity: "block", detail: null }],
      cost_usd: 0,
      wall_clock_ms: 0,
    };
  },
};

if (import.meta.main) await runRubric(rubric);
export default rubric;
