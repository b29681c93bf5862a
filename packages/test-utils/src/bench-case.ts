// A replay BenchCase for tests of agent SUTs: a curated, held-out positive case in a case directory laid out
// as a bench holds it (`<bench root>/<task class>/cases/<case id>/`), with fixed dates, canary pin and digest.
import { dirname, join } from "node:path";
import type { BenchCase } from "@eval/models";
import { BenchCaseSchema, parseWire } from "@eval/models";

export interface TestBenchCaseOptions {
  /** The case directory, `<bench root>/<task class>/cases/<case id>`: its name is the case id, its grandparent's the task class. */
  readonly caseDir: string;
  readonly prompt: string;
}

/** The BenchCase the loader would give for `caseDir` (no cassette path: SUTs find `cassette/` beside `input/`). */
export function testBenchCase({ caseDir, prompt }: TestBenchCaseOptions): BenchCase {
  return parseWire(BenchCaseSchema, {
    case_id: caseDir.split("/").at(-1),
    task_class: dirname(dirname(caseDir)).split("/").at(-1),
    prompt,
    disposition: "positive",
    difficulty: "easy",
    source: "curated",
    curation_class: "held-out",
    added_at: "2026-01-01T00:00:00Z",
    last_validated_at: "2026-01-01T00:00:00Z",
    cassette_canary_pin: "0123456789abcdef0123456789abcdef",
    case_path: caseDir,
    input_path: join(caseDir, "input"),
    expected_path: join(caseDir, "expected"),
    cassette_path: null,
    case_digest: `blake3:${"0".repeat(64)}`,
  });
}

/** The bench root of a case directory laid out as `testBenchCase` expects. */
export function benchRootOf(caseDir: string): string {
  return dirname(dirname(dirname(caseDir)));
}
