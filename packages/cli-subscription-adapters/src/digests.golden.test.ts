import { describe, expect, it } from "vitest";
import { suiteSha256 } from "./compliance-tasks.ts";
import { promptSha256 } from "./prompt.ts";

// Digests recorded before the hashing change: prompt and suite hashes are in cassettes and compliance
// reports (the replay SUT's digest is checked in @eval/agent-sut).
describe("adapter digests recorded before the hashing change", () => {
  it("keeps prompt and compliance-suite hashes", () => {
    expect(promptSha256("golden prompt")).toBe(
      "sha256:2e269c89648c505912e19dfc90c949d4bd34bccb83753faf95701563e55864f1",
    );
    // The suite itself changed when tasks gained their expected effects (reports judged by parsing alone are not admitted).
    expect(suiteSha256()).toBe("sha256:21da9ea9d931c66d50605582d74a6292c85ffa6125b4d646a43059c744b31c0e");
  });
});
