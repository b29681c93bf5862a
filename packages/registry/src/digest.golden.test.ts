import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { goldenRuns } from "@eval/test-utils";
import { describe, expect, it } from "vitest";
import { digestDirectory } from "./digest.ts";
import { computeRubricDigest } from "./rubric-digest.ts";

const DEMO_BENCH = join(import.meta.dirname, "__fixtures__", "demo-bench");
const GOLDEN_CASES = join(import.meta.dirname, "__fixtures__", "golden-cases");

// Case digests recorded in both shipped benches' cases/digests.yaml when the golden runs were made:
// the case-tree serialization must give the same bytes for the same files. The files are those cases as
// they were then (__fixtures__/golden-cases): the shipped cases have changed since (their cassettes were
// re-recorded by real CLIs), which changes their digests as it should.
describe("digests recorded before the hashing change", () => {
  it("recomputes the case digest of every case of both shipped benches", async () => {
    const seen = new Set<string>();
    for (const { task_class, cases } of goldenRuns()) {
      for (const c of cases) {
        if (seen.has(`${task_class}/${c.case_id}`)) continue;
        seen.add(`${task_class}/${c.case_id}`);
        expect((await digestDirectory(join(GOLDEN_CASES, task_class, c.case_id))).digest, c.case_id).toBe(
          c.case_digest,
        );
      }
    }
    expect(seen.size).toBe(22);
  });

  it("keeps the tree digest and the rubric digest of a fixed bench", async () => {
    expect((await digestDirectory(DEMO_BENCH)).digest).toBe(
      "blake3:bb0ca52cb399a8c4d5b648b3e1b4b915f0a053651a97c630c12592e28ed66cf8",
    );
    // Copied out of this repository: inside it, packages/registry's locked dependencies would count too.
    const copy = join(mkdtempSync(join(tmpdir(), "evalgate-golden-")), "demo-bench");
    cpSync(DEMO_BENCH, copy, { recursive: true });
    expect(await computeRubricDigest(copy)).toBe(
      "blake3:687ca36f6197e40170afb23e48197f053a8f21aa739f033eb92ec36fbc8d8557",
    );
  });
});
