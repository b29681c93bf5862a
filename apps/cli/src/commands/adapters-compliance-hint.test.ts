// EVAL_ADAPTER_COMPLIANCE_FAILED says what the trials were classified as, and its hint follows from
// that (was: "the CLI's output drifted" for an auth failure too).
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyRecentCompliance } from "@eval/cli-subscription-adapters";
import { invoke } from "../test-helpers.ts";
import { CLAUDE_NOT_LOGGED_IN, fakeClaude } from "./adapters.test-helpers.ts";

describe("a compliance check that fails on a logged-out CLI", () => {
  it("names the classification and says to log in, at the check and at the backend's gate", async () => {
    const fake = fakeClaude({ stream: CLAUDE_NOT_LOGGED_IN, exitCode: 1, loggedIn: false });
    const state = mkdtempSync(join(tmpdir(), "evalgate-cli-state-"));
    const result = await invoke(
      [
        "adapters",
        "compliance-check",
        "--adapter",
        "claude-code",
        "--binary",
        fake.binaryPath,
        "--out",
        state,
        "--allow-cli-subscription",
        "--acknowledge-unsandboxed-cli",
      ],
      { env: { PATH: process.env.PATH } },
    );
    expect(result.code).toBe(1);
    const last = result.stderr.trim().split("\n").at(-1)!;
    expect(last).toMatch(
      /; classified: 1 cli_error \(auth_failure\), 19 not run \(EVAL_ADAPTER_COMPLIANCE_FAILED\); the CLI is not logged in \(an auth failure, not output drift\): log in with the CLI itself/,
    );
    expect(last).not.toMatch(/drifted/);
    const gate = (): unknown =>
      verifyRecentCompliance({
        complianceDir: join(state, "compliance"),
        adapter: "claude-code",
        binaryPath: realpathSync(fake.binaryPath),
        cliVersion: "2.1.330",
        endpointOrigin: "https://api.anthropic.com",
      });
    expect(gate).toThrow(
      expect.objectContaining({
        code: "EVAL_ADAPTER_COMPLIANCE_FAILED",
        message: expect.stringContaining("classified: 1 cli_error (auth_failure), 19 not run"),
        hint: expect.stringMatching(/^the CLI is not logged in/),
      }),
    );
  }, 60_000);
});
