import { goldenRuns } from "@eval/test-utils";
import { describe, expect, it } from "vitest";
import { cacheKey } from "./cache-key.ts";

// Every case of real runs of both shipped benches, recorded before the hashing change: the key the
// run used must come out of the same inputs byte for byte, or every cached score would be orphaned.
describe("cache keys recorded before the hashing change", () => {
  it("are recomputed exactly from their inputs", () => {
    let checked = 0;
    for (const { record, cases } of goldenRuns()) {
      const { sut_digest, rubric_digest, cassette_corpus_digest, harness_version, isolation_class, sut_isolation } =
        record.report;
      for (const c of cases) {
        // The runner keys scores by harness version and both isolations (run-eval.ts).
        const keyedVersion = `${harness_version}+${isolation_class}+sut:${sut_isolation}`;
        const parts = {
          case_digest: c.case_digest,
          sut_digest,
          rubric_digest,
          cassette_corpus_digest,
          harness_version: keyedVersion,
          cassette_canary_pin: c.cassette_canary_pin,
        };
        expect(cacheKey(parts), c.case_id).toBe(c.cache_key);
        checked += 1;
      }
    }
    expect(checked).toBe(29);
  });
});
