import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentAdapterName } from "@eval/models";
import { pinnedAgentClis } from "@eval/test-utils";
import { ADAPTERS } from "./adapter-registry.ts";
import { CliSubscriptionBackend } from "./backend.ts";
import { buildCliEnv, readVersion, resolveBinary } from "./binary.ts";
import { runComplianceCheck } from "./compliance.ts";
import { executeTrial } from "./trial.ts";

/**
 * The real agent CLIs (the versions pinned in scripts/agent-clis/, installed by scripts/agent-clis.sh, which
 * scripts/test.sh runs) with no credentials (a fresh HOME) and no model endpoint: each must be classified as
 * the login failure it is. Skips, saying why, when the CLIs are not installed; under scripts/test.sh it fails.
 */
const { dir: clisDir, reason } = pinnedAgentClis(join(import.meta.dirname, "..", "..", ".."));
const binDir = clisDir === null ? null : join(clisDir, "node_modules", ".bin");
const available = binDir !== null;

const DEADLINE_MS = 60_000;
const GRACE_MS = 5_000;

function hostEnv(): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), "evalgate-real-home-"));
  // PATH: the CLIs' bin dir and the directory of the node running these tests (the CLIs are node scripts).
  return { PATH: `${binDir}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, TERM: "dumb" };
}

describe.skipIf(!available)(
  available ? "real agent CLIs, no credentials, no network" : `real agent CLIs (skipped: ${reason})`,
  () => {
    for (const name of ["claude-code", "codex", "gemini"] as const satisfies readonly AgentAdapterName[]) {
      it(`${name}: resolves the binary, reads the version, runs, and names the auth failure within its deadline, leaving no process`, async () => {
        const adapter = ADAPTERS[name];
        const env = hostEnv();
        const binaryPath = resolveBinary(adapter, { env });
        expect(binaryPath).toBe(join(binDir!, adapter.binaryName));
        const version = readVersion(adapter, binaryPath, buildCliEnv(adapter, env));
        expect(version).toMatch(/^\d+\.\d+\.\d+/);
        const root = mkdtempSync(join(tmpdir(), "evalgate-real-ws-"));
        writeFileSync(join(root, "note.txt"), "hello\n");
        const started = Date.now();
        const run = await executeTrial({
          adapter,
          binaryPath,
          cliVersion: version,
          prompt: "Reply with the single word: hello",
          workspace: { root, editable: ["."], readonly: [] },
          env: buildCliEnv(adapter, env),
          limits: { timeoutMs: DEADLINE_MS, graceMs: GRACE_MS },
        });
        const elapsed = Date.now() - started;
        console.info(
          `[real-cli] ${name} ${version}: ${run.classification.trial_class}/${run.classification.cli_error_kind} in ${elapsed} ms (exit ${run.outcome.exitCode}, stop ${run.outcome.stopReason ?? "none"}): ${run.classification.reason}`,
        );
        expect(run.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "auth_failure" });
        expect(elapsed).toBeLessThan(DEADLINE_MS + GRACE_MS);
        let code: string | undefined;
        try {
          process.kill(-run.outcome.pgid!, 0);
        } catch (error) {
          code = (error as NodeJS.ErrnoException).code;
        }
        expect(code).toBe("ESRCH");
      }, 240_000);
    }

    it("the compliance gate: a logged-out CLI's report fails, the backend refuses, and the override still names the auth failure", async () => {
      const env = hostEnv();
      const stateDir = mkdtempSync(join(tmpdir(), "evalgate-real-state-"));
      const check = await runComplianceCheck({ adapter: "codex", stateDir, env, timeoutMsPerTask: DEADLINE_MS });
      console.info(
        `[real-cli] compliance codex ${check.report.cli_version}: pass_rate ${check.report.pass_rate}, ran ${check.report.ran_count}/20 -> ${check.reportPath}`,
      );
      expect(check.report.passed).toBe(false);
      const options = {
        adapter: "codex" as const,
        allow_cli_subscription: true,
        acknowledge_unsandboxed_cli: true,
        sandbox: "none" as const,
        complianceDir: join(stateDir, "compliance"),
        env,
      };
      expect(() => new CliSubscriptionBackend(options)).toThrow(
        expect.objectContaining({ code: "EVAL_ADAPTER_COMPLIANCE_FAILED" }),
      );
      const backend = new CliSubscriptionBackend({ ...options, allow_stale_compliance: true });
      const root = mkdtempSync(join(tmpdir(), "evalgate-real-ws-"));
      const result = await backend.run({
        prompt: "Reply with the single word: hello",
        workspace: { root, editable: [], readonly: [] },
        timeoutMs: DEADLINE_MS,
      });
      expect(result.classification.cli_error_kind).toBe("auth_failure");
      expect(result.backend_metadata.compliance_report_path).toBe(check.reportPath);
      // Codex reads its prompt on stdin: the recorded argv is its exec mode's.
      expect(result.backend_metadata.argv_redacted.slice(0, 2)).toEqual(["exec", "--json"]);
    }, 300_000);
  },
);
