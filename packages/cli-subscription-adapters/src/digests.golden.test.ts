import { goldenRuns } from "@eval/test-utils";
import { describe, expect, it } from "vitest";
import { suiteSha256 } from "./compliance-tasks.ts";
import { promptSha256 } from "./prompt.ts";
import { createReplaySut } from "./suts.ts";

// Digests recorded before the hashing change: the replay SUT's digest is in every golden run's
// report (and so in every cached score's key); prompt and suite hashes are in cassettes and
// compliance reports.
describe("adapter digests recorded before the hashing change", () => {
  it("gives the replay SUT the digest the golden runs recorded", () => {
    const digest = createReplaySut({ benchRoot: "/nonexistent" }).digest;
    const replayRuns = goldenRuns().filter(({ record }) => record.report.sut_label === "replay");
    expect(replayRuns.length).toBeGreaterThan(0);
    for (const { record } of replayRuns) expect(digest).toBe(record.report.sut_digest);
  });

  it("keeps prompt and compliance-suite hashes", () => {
    expect(promptSha256("golden prompt")).toBe(
      "sha256:2e269c89648c505912e19dfc90c949d4bd34bccb83753faf95701563e55864f1",
    );
    // The suite itself changed when tasks gained their expected effects (reports judged by parsing alone are not admitted).
    expect(suiteSha256()).toBe("sha256:21da9ea9d931c66d50605582d74a6292c85ffa6125b4d646a43059c744b31c0e");
  });
});
