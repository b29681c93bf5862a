import { describe, expect, it } from "vitest";
import { CliBackendMetadataSchema, ComplianceTrialSchema, safeParseWire, TrialClassificationSchema } from "./index.ts";

describe("compliance and CLI-backend wire schemas", () => {
  it("a classification names its cli_error kind exactly when it is a cli_error", () => {
    expect(
      TrialClassificationSchema.safeParse({ trial_class: "cli_error", cli_error_kind: "auth_failure", reason: "x" })
        .success,
    ).toBe(true);
    expect(
      TrialClassificationSchema.safeParse({ trial_class: "parse_success", cli_error_kind: null, reason: "x" }).success,
    ).toBe(true);
    const missingKind = safeParseWire(TrialClassificationSchema, {
      trial_class: "cli_error",
      cli_error_kind: null,
      reason: "x",
    });
    expect(missingKind.success).toBe(false);
    expect(
      TrialClassificationSchema.safeParse({ trial_class: "parse_success", cli_error_kind: "timeout", reason: "x" })
        .success,
    ).toBe(false);
  });

  it("a compliance trial line is strict", () => {
    const line = {
      schema_version: "evalgate.compliance_trial.v2",
      task_id: "say-hello",
      prompt_sha256: `sha256:${"a".repeat(64)}`,
      ran: false,
      classification: null,
      safety: null,
      exit_code: null,
      timed_out: false,
      stdout_capped: false,
      duration_ms: 0,
      unknown_event_types: [],
      effects: null,
      passed: false,
    };
    expect(ComplianceTrialSchema.safeParse(line).success).toBe(true);
    expect(ComplianceTrialSchema.safeParse({ ...line, api_key: "x" }).success).toBe(false);
  });

  it("backend metadata says whether the CLI ran sandboxed and never carries env values", () => {
    const shape = CliBackendMetadataSchema.shape;
    expect(shape.isolation.options).toEqual(["cli_subscription_bwrap", "cli_subscription_unsandboxed"]);
    expect(Object.keys(shape.env_allowlist.element.shape).sort()).toEqual(["name", "secret"]);
  });
});
