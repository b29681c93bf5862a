import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EvalWarning } from "@eval/errors";
import { CliBackendMetadataSchema } from "@eval/models";
import { CliSubscriptionBackend } from "./backend.ts";
import { writeReport } from "./compliance.test-helpers.ts";
import { createFakeCli } from "./fake-cli.test-helpers.ts";

const NOW = new Date("2026-11-22T03:00:00Z");

function setup(
  scenarioSteps = [{ stdout: "file:claude-success.stdout.jsonl" }] as Parameters<typeof createFakeCli>[1]["steps"],
) {
  const fake = createFakeCli("claude", { version: "2.1.330 (Claude Code)", steps: scenarioSteps });
  const complianceDir = join(mkdtempSync(join(tmpdir(), "evalgate-state-")), "compliance");
  return { fake, complianceDir };
}

function backend(
  fake: { binaryPath: string },
  complianceDir: string,
  extra: Partial<ConstructorParameters<typeof CliSubscriptionBackend>[0]> = {},
) {
  return new CliSubscriptionBackend({
    adapter: "claude-code",
    allow_cli_subscription: true,
    acknowledge_unsandboxed_cli: true,
    sandbox: "none",
    complianceDir,
    binaryPath: fake.binaryPath,
    env: { PATH: process.env.PATH },
    now: () => NOW,
    graceMs: 1_000,
    ...extra,
  });
}

describe("CliSubscriptionBackend construction: the gate", () => {
  it("refuses without both opt-in flags, naming what is missing", () => {
    const { fake, complianceDir } = setup();
    expect(() => backend(fake, complianceDir, { allow_cli_subscription: false })).toThrow(
      /missing: allow_cli_subscription \(/,
    );
    expect(() => backend(fake, complianceDir, { acknowledge_unsandboxed_cli: false })).toThrow(
      /missing: acknowledge_unsandboxed_cli/,
    );
    try {
      backend(fake, complianceDir, { allow_cli_subscription: false, acknowledge_unsandboxed_cli: false });
    } catch (error) {
      expect((error as { code: string }).code).toBe("EVAL_ADAPTER_NOT_OPTED_IN");
    }
  });

  it("refuses a missing binary, and one that does not print a version", () => {
    const { complianceDir } = setup();
    expect(() => backend({ binaryPath: "/nonexistent/claude" }, complianceDir)).toThrow(
      expect.objectContaining({ code: "EVAL_ADAPTER_BINARY_NOT_FOUND" }),
    );
    const dir = mkdtempSync(join(tmpdir(), "evalgate-bin-"));
    writeFileSync(join(dir, "claude"), "#!/bin/sh\necho nothing useful\n");
    chmodSync(join(dir, "claude"), 0o755);
    expect(() => backend({ binaryPath: join(dir, "claude") }, complianceDir)).toThrow(
      expect.objectContaining({ code: "EVAL_ADAPTER_INVALID" }),
    );
    expect(
      () =>
        new CliSubscriptionBackend({
          adapter: "claude-code",
          allow_cli_subscription: true,
          acknowledge_unsandboxed_cli: true,
          sandbox: "none",
          complianceDir,
          env: { PATH: dir },
        }),
    ).toThrow(expect.objectContaining({ code: "EVAL_ADAPTER_INVALID" }));
    expect(
      () =>
        new CliSubscriptionBackend({
          adapter: "claude-code",
          allow_cli_subscription: true,
          acknowledge_unsandboxed_cli: true,
          sandbox: "none",
          complianceDir,
          env: { PATH: "/nonexistent" },
        }),
    ).toThrow(/no executable "claude" on PATH/);
  });

  it("resolves the binary on PATH and reads its version once", () => {
    const { fake, complianceDir } = setup();
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: NOW,
    });
    const instance = new CliSubscriptionBackend({
      adapter: "claude-code",
      allow_cli_subscription: true,
      acknowledge_unsandboxed_cli: true,
      sandbox: "none",
      complianceDir,
      env: { PATH: `${fake.dir}:${process.env.PATH}` },
      now: () => NOW,
    });
    expect(instance.binaryPath).toBe(fake.binaryPath);
    expect(instance.cliVersion).toBe("2.1.330");
  });

  it("refuses without a report, with a stale one, another version or path, another suite, another endpoint, or below 99%", () => {
    const { fake, complianceDir } = setup();
    const missing = (): unknown => backend(fake, complianceDir);
    expect(missing).toThrow(expect.objectContaining({ code: "EVAL_ADAPTER_COMPLIANCE_MISSING" }));
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.329",
      endedAt: NOW,
      name: "a.jsonl",
    });
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: "/other/claude",
      version: "2.1.330",
      endedAt: NOW,
      name: "b.jsonl",
    });
    writeReport(complianceDir, {
      adapter: "codex",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: NOW,
      name: "c.jsonl",
    });
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: NOW,
      suite: `sha256:${"0".repeat(64)}`,
      name: "d.jsonl",
    });
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: NOW,
      origin: "http://127.0.0.1:8787",
      name: "d2.jsonl",
    });
    writeFileSync(join(complianceDir, "garbage.jsonl"), "not json\n");
    expect(missing).toThrow(
      /no report in .* for this binary path, version, benign suite and endpoint \(https:\/\/api\.anthropic\.com\)/,
    );
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: new Date(NOW.getTime() - 31 * 86_400_000),
      name: "e.jsonl",
    });
    expect(missing).toThrow(/is 31 days old; at most 30 are accepted/);
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: new Date(NOW.getTime() - 86_400_000),
      passRate: 0.95,
      name: "f.jsonl",
    });
    expect(missing).toThrow(expect.objectContaining({ code: "EVAL_ADAPTER_COMPLIANCE_FAILED" }));
    expect(missing).toThrow(/passed 95.0% of benign tasks; at least 99% is required/);
    const good = writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: new Date(NOW.getTime() - 29 * 86_400_000),
      passRate: 1,
      name: "g.jsonl",
    });
    // The newest report decides: f.jsonl (1 day old, 95%) is newer than g.jsonl.
    expect(missing).toThrow(expect.objectContaining({ code: "EVAL_ADAPTER_COMPLIANCE_FAILED" }));
    const newest = writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: NOW,
      passRate: 1,
      name: "h.jsonl",
    });
    expect(backend(fake, complianceDir).complianceReportPath).toBe(newest);
    expect(good).not.toBe(newest);
  });

  it("allow_stale_compliance overrides with one loud warning, and the metadata says so", async () => {
    const { fake, complianceDir } = setup();
    const stale = writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: new Date(NOW.getTime() - 90 * 86_400_000),
    });
    const warnings: EvalWarning[] = [];
    const instance = backend(fake, complianceDir, {
      allow_stale_compliance: true,
      onWarning: (warning) => warnings.push(warning),
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.code).toBe("adapter.compliance_overridden");
    expect(warnings[0]!.message).toMatch(/^!!! COMPLIANCE GATE OVERRIDDEN for claude-code 2\.1\.330 .*90 days old/);
    expect(instance.complianceReportPath).toBe(stale);
    const root = mkdtempSync(join(tmpdir(), "evalgate-ws-"));
    const result = await instance.run({
      prompt: "hi",
      workspace: { root, editable: [], readonly: [] },
      timeoutMs: 20_000,
    });
    expect(result.backend_metadata.compliance_stale_override).toBe(true);
    expect(result.backend_metadata.compliance_report_path).toBe(stale);
    // Fresh report and the override flag: no warning, no override recorded.
    const fresh = setup();
    writeReport(fresh.complianceDir, {
      adapter: "claude-code",
      binaryPath: fresh.fake.binaryPath,
      version: "2.1.330",
      endedAt: NOW,
    });
    const quiet: EvalWarning[] = [];
    expect(
      backend(fresh.fake, fresh.complianceDir, {
        allow_stale_compliance: true,
        onWarning: (warning) => quiet.push(warning),
      }).staleOverride,
    ).toBe(false);
    expect(quiet).toEqual([]);
    // No report at all and the override: runs, with a null report path.
    const none = setup();
    expect(backend(none.fake, none.complianceDir, { allow_stale_compliance: true }).complianceReportPath).toBeNull();
  });

  it("refuses permission-bypass, shell and eval flags in extra_args", () => {
    const { fake, complianceDir } = setup();
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: NOW,
    });
    for (const bad of ["--dangerously-skip-permissions", "--yolo", "bypassPermissions", "--eval"]) {
      expect(() => backend(fake, complianceDir, { extra_args: ["--permission-mode", bad] })).toThrow(
        expect.objectContaining({ code: "EVAL_ADAPTER_INVALID" }),
      );
    }
    expect(backend(fake, complianceDir, { extra_args: ["--model", "opus"] }).adapter.name).toBe("claude-code");
  });
});

describe("CliSubscriptionBackend.run", () => {
  it("tags every result unsandboxed with degraded capabilities and full metadata pointing at the report file", async () => {
    const { fake, complianceDir } = setup();
    const reportPath = writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: NOW,
    });
    const root = mkdtempSync(join(tmpdir(), "evalgate-ws-"));
    writeFileSync(join(root, "a.txt"), "a\n");
    const result = await backend(fake, complianceDir).run({
      prompt: "Reply with hello",
      workspace: { root, editable: ["a.txt"], readonly: [] },
      timeoutMs: 20_000,
    });
    expect(result.isolation).toBe("cli_subscription_unsandboxed");
    expect(result.capabilities).toEqual(["agent_loop_external", "host_fs_visible"]);
    expect(result.classification.trial_class).toBe("parse_success");
    expect(result.cost_usd).toBe(0.0213);
    const meta = CliBackendMetadataSchema.parse(result.backend_metadata);
    expect(meta.compliance_report_path).toBe(reportPath);
    expect(meta.compliance_report_path).not.toBe(fake.binaryPath);
    expect(meta.cli_binary_path).toBe(fake.binaryPath);
    expect(meta.cli_version).toBe("2.1.330");
    expect(meta.argv_redacted).toEqual([
      "--print",
      "Reply with hello",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
    ]);
    expect(meta.exit_code).toBe(0);
    expect(meta.timed_out).toBe(false);
    expect(meta.env_allowlist).toEqual([{ name: "PATH", secret: false }]);
    expect(result.transcript.tool_calls.length).toBeGreaterThan(0);
  });

  it("scratch: only declared files visible, read-only ones read-only; only changed editable files come back", async () => {
    const { fake, complianceDir } = setup([
      { modifyFile: { path: "src/app.js", content: "fixed\n" } },
      { modifyFile: { path: "new.txt", content: "created\n" } },
      { modifyFile: { path: "README.md", content: "overwritten\n" } },
      { stdout: "file:claude-success.stdout.jsonl" },
    ]);
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: NOW,
    });
    const root = mkdtempSync(join(tmpdir(), "evalgate-ws-"));
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "app.js"), "broken\n");
    writeFileSync(join(root, "README.md"), "read me\n");
    writeFileSync(join(root, "secret-notes.txt"), "not declared\n");
    const result = await backend(fake, complianceDir).run({
      prompt: "fix",
      workspace: { root, editable: ["src"], readonly: ["README.md"] },
      timeoutMs: 20_000,
    });
    const invocation = fake.invocations()[0]!;
    expect(invocation.cwd).not.toBe(root);
    expect(existsSync(invocation.cwd)).toBe(false);
    expect(readFileSync(join(root, "src", "app.js"), "utf8")).toBe("fixed\n");
    expect(existsSync(join(root, "new.txt"))).toBe(false);
    expect(result.backend_metadata.changed_files).toEqual(["src/app.js"]);
    // The read-only README is one the agent cannot write as an ordinary user; root writes through its mode.
    expect(result.backend_metadata.undeclared_changes).toEqual(
      process.getuid?.() === 0 ? ["README.md", "new.txt"] : ["new.txt"],
    );
    expect(readFileSync(join(root, "README.md"), "utf8")).toBe("read me\n");
    expect(result.diff).toBe("--- a/src/app.js\n+++ b/src/app.js\n@@ -1,1 +1,1 @@\n-broken\n+fixed\n");
    expect(statSync(join(root, "README.md")).mode & 0o222).not.toBe(0);
  });

  it("rejects declared paths that escape the root, are symlinks, or do not exist", async () => {
    const { fake, complianceDir } = setup();
    writeReport(complianceDir, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
      endedAt: NOW,
    });
    const root = mkdtempSync(join(tmpdir(), "evalgate-ws-"));
    const { symlinkSync } = await import("node:fs");
    symlinkSync("/etc/passwd", join(root, "link"));
    const instance = backend(fake, complianceDir);
    const run = (editable: string[]) =>
      instance.run({ prompt: "x", workspace: { root, editable, readonly: [] }, timeoutMs: 5_000 });
    await expect(run(["../outside"])).rejects.toThrow(/escapes the workspace root/);
    await expect(run(["/etc"])).rejects.toThrow(/escapes the workspace root/);
    await expect(run(["link"])).rejects.toThrow(/is a symlink/);
    await expect(run(["missing.txt"])).rejects.toThrow(/does not exist/);
    expect(fake.invocations()).toEqual([]);
  });
});
