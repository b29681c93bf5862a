import { goldenRuns } from "@eval/test-utils";
import { describe, expect, it } from "vitest";
import { createReplaySut } from "./suts.ts";

// The replay SUT's digest is in every golden run's report, and so in every cached score's key: it must not move.
describe("the replay SUT's digest recorded before the hashing change", () => {
  it("is the digest the golden runs recorded", () => {
    const digest = createReplaySut({ benchRoot: "/nonexistent" }).digest;
    const replayRuns = goldenRuns().filter(({ record }) => record.report.sut_label === "replay");
    expect(replayRuns.length).toBeGreaterThan(0);
    for (const { record } of replayRuns) expect(digest).toBe(record.report.sut_digest);
  });
});
