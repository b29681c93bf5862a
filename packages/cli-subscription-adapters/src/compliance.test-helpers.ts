import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentAdapterName, TrialClass } from "@eval/models";
import { COMPLIANCE_REPORT_SCHEMA_VERSION, ComplianceReportSchema, parseWire } from "@eval/models";
import { benignSolutions, suiteSha256 } from "./compliance-tasks.ts";
import { endpointOrigin } from "./endpoint.ts";
import type { FakeStep } from "./fake-cli.test-helpers.ts";

/** A fake CLI step that does every benign task: it writes each task's expected files (matched by its prompt). */
export function doesBenignTasks(): FakeStep {
  return { writeByPrompt: benignSolutions().map(({ match, files }) => ({ match, files: { ...files } })) };
}

/** Writes a compliance report (summary line only) as `runComplianceCheck` would (default endpoint: the adapter's provider); returns its path. */
export function writeReport(
  complianceDir: string,
  fields: {
    adapter: AgentAdapterName;
    binaryPath: string;
    version: string;
    endedAt?: Date;
    passRate?: number;
    suite?: string;
    name?: string;
    origin?: string;
    scenario?: string | null;
  },
): string {
  mkdirSync(complianceDir, { recursive: true });
  const ended = fields.endedAt ?? new Date();
  const passRate = fields.passRate ?? 1;
  const counts: Record<TrialClass, number> = {
    parse_success: Math.round(passRate * 20),
    parse_failure: 0,
    model_refusal: 0,
    format_drift: 0,
    cli_error: 20 - Math.round(passRate * 20),
  };
  const report = parseWire(ComplianceReportSchema, {
    schema_version: COMPLIANCE_REPORT_SCHEMA_VERSION,
    adapter: fields.adapter,
    cli_binary_path: fields.binaryPath,
    cli_version: fields.version,
    cli_binary_sha256: `sha256:${"0".repeat(64)}`,
    endpoint: { origin: fields.origin ?? endpointOrigin(fields.adapter, {}), scenario_sha256: fields.scenario ?? null },
    suite_sha256: fields.suite ?? suiteSha256(),
    started_at: new Date(ended.getTime() - 60_000).toISOString(),
    ended_at: ended.toISOString(),
    task_count: 20,
    ran_count: 20,
    parse_success_count: counts.parse_success,
    effects_met_count: counts.parse_success,
    passed_count: counts.parse_success,
    pass_rate: passRate,
    threshold: 0.99,
    passed: passRate >= 0.99,
    trial_class_counts: counts,
  });
  const path = join(complianceDir, fields.name ?? `${fields.adapter}-${ended.getTime()}.jsonl`);
  writeFileSync(path, `${JSON.stringify(report)}\n`);
  return path;
}
