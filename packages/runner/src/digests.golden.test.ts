import { join } from "node:path";
import { goldenRuns } from "@eval/test-utils";
import { describe, expect, it } from "vitest";
import { cassetteCorpusDigest } from "./prepare-run.ts";
import { runStatistics, seededRandom } from "@eval/statistics";
import { canarySeedFor, digestOf } from "./sut.ts";

const BENCH_ROOT = join(import.meta.dirname, "..", "..", "..", "bench");

// Real runs recorded before the hashing change: each digest the runner derives (selection, bootstrap
// seed, cassette corpus) and the statistics seeded from them must come out byte for byte the same.
describe("runner digests recorded before the hashing change", () => {
  it("recomputes the selection digest, bootstrap seed, corpus digest and seeded BCa bound of every golden run", async () => {
    for (const { record, cases } of goldenRuns()) {
      const report = record.report;
      expect(digestOf("evalgate.case_selection.v1", cases.map((c) => c.case_id).sort())).toBe(
        report.selection.selected_case_ids_digest,
      );
      const seed = digestOf(
        "evalgate.bootstrap_seed.v1",
        cases.map((c) => c.cache_key),
      );
      expect(seed).toBe(report.informational.bootstrap_seed);
      expect(await cassetteCorpusDigest(join(BENCH_ROOT, report.task_class))).toBe(report.cassette_corpus_digest);
      const stats = runStatistics(
        report.per_case.map((c) => c.score),
        { scoreKind: report.score_kind, seed, orderSeed: report.selection.selected_case_ids_digest },
      );
      expect(stats.bcaLowerBound95).toBe(report.informational.bca_lower_bound_95);
    }
  });

  it("keeps the canary seed, the framing of binary parts and the seeded generator", () => {
    expect(canarySeedFor("3ce2a010b8819b74261761ddd20eb61e")).toBe(
      "c16f1f833f6e048513d34d166191b6e898f95f31cbdb6cf84960a9f7a5219ff9",
    );
    expect(digestOf("evalgate.golden.v1", ["text", new Uint8Array([0, 1, 2, 255]), ""])).toBe(
      "blake3:5f45d7db44c5ad7db87ca28f22d04585cf48ef6585ad91c767ce64bbbc7bdf54",
    );
    const random = seededRandom("golden");
    expect([random(), random(), random()]).toEqual([0.752597241429612, 0.6033484165091068, 0.7106570622418076]);
  });
});
