import { randomBytes } from "node:crypto";
import { sha256Digest } from "@eval/hashing";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentAdapterName, ComplianceReport, ComplianceTrial, TrialClass } from "@eval/models";
import {
  COMPLIANCE_REPORT_SCHEMA_VERSION,
  COMPLIANCE_TRIAL_SCHEMA_VERSION,
  ComplianceReportSchema,
  parseWire,
  safeParseWire,
  TrialClassSchema,
} from "@eval/models";
import { agentArgsFor } from "./agent-args.ts";
import { getAdapter } from "./adapter-registry.ts";
import { buildCliEnv, readVersion, resolveBinary } from "./binary.ts";
import { classificationOf, trialsInReportFile } from "./compliance-failure.ts";
import { BENIGN_TASKS, checkEffects, suiteSha256 } from "./compliance-tasks.ts";
import type { BenignTask } from "./compliance-tasks.ts";
import { endpointIdentity, endpointOrigin, pointCliAt, requireUpstreamUrl } from "./endpoint.ts";
import { ComplianceReportFailed, ComplianceReportMissing } from "./errors.ts";
import { promptSha256 } from "./prompt.ts";
import { executeTrial } from "./trial.ts";
import type { TrialLimits } from "./trial.ts";
import { replaceFileSync } from "@eval/durable-fs";
import { stateLayout } from "@eval/state-layout";
import { RUN_DEFAULTS } from "@eval/models/defaults";

export const COMPLIANCE_THRESHOLD = 0.99;
export const COMPLIANCE_MAX_AGE_DAYS = 30;

export interface ComplianceCheckOptions {
  readonly adapter: AgentAdapterName;
  /** Where reports go: `<stateDir>/compliance/`. */
  readonly stateDir: string;
  readonly binaryPath?: string;
  /** The host environment the CLI's allowlisted variables come from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Point the CLI at this model endpoint (a gateway, or `evalgate model-stub`) through a fresh HOME per
   * task, with the provider's key from `env` or a dummy; default: the CLI's own settings and login.
   */
  readonly modelUpstream?: string;
  /** The model the CLI is asked for (its `--model`), as `run --agent-model` does; default the CLI's own. */
  readonly model?: string;
  readonly timeoutMsPerTask?: number;
  readonly limits?: Omit<TrialLimits, "timeoutMs">;
  /** Stop after the first auth failure: the remaining tasks are recorded as not run (and not passed). */
  readonly stopAfterAuthFailure?: boolean;
  readonly tasks?: readonly BenignTask[];
  readonly onTrial?: (trial: ComplianceTrial, index: number, total: number) => void;
  readonly now?: () => Date;
}

export interface ComplianceCheckResult {
  readonly report: ComplianceReport;
  readonly reportPath: string;
  readonly trials: readonly ComplianceTrial[];
}

/**
 * Runs the benign suite live against the adapter's CLI and writes the JSONL report (one line per task,
 * then the summary line) atomically under `<stateDir>/compliance/`. This spends the user's quota.
 */
export async function runComplianceCheck(options: ComplianceCheckOptions): Promise<ComplianceCheckResult> {
  const adapter = getAdapter(options.adapter);
  const now = options.now ?? (() => new Date());
  const binaryPath = resolveBinary(adapter, { binaryPath: options.binaryPath, env: options.env });
  const env = buildCliEnv(adapter, options.env);
  const cliVersion = readVersion(adapter, binaryPath, env);
  const tasks = options.tasks ?? BENIGN_TASKS;
  if (options.modelUpstream !== undefined) requireUpstreamUrl(options.modelUpstream);
  const endpoint = await endpointIdentity(endpointOrigin(adapter.name, env, options.modelUpstream));
  const startedAt = now();
  const trials: ComplianceTrial[] = [];
  let authFailed = false;
  for (const [index, task] of tasks.entries()) {
    const trial =
      authFailed && options.stopAfterAuthFailure !== false
        ? notRun(task)
        : await runTask(options, { adapter, binaryPath, cliVersion, env }, task);
    if (trial.classification?.cli_error_kind === "auth_failure") authFailed = true;
    trials.push(trial);
    options.onTrial?.(trial, index, tasks.length);
  }
  const counts = Object.fromEntries(TrialClassSchema.options.map((name) => [name, 0])) as Record<TrialClass, number>;
  for (const trial of trials) if (trial.classification !== null) counts[trial.classification.trial_class] += 1;
  const passedCount = trials.filter((trial) => trial.passed).length;
  const passRate = passedCount / tasks.length;
  const report = parseWire(ComplianceReportSchema, {
    schema_version: COMPLIANCE_REPORT_SCHEMA_VERSION,
    adapter: adapter.name,
    cli_binary_path: binaryPath,
    cli_version: cliVersion,
    cli_binary_sha256: binarySha256(binaryPath),
    endpoint,
    suite_sha256: suiteSha256(tasks),
    started_at: startedAt.toISOString(),
    ended_at: now().toISOString(),
    task_count: tasks.length,
    ran_count: trials.filter((trial) => trial.ran).length,
    parse_success_count: counts.parse_success,
    effects_met_count: trials.filter((trial) => trial.effects?.met === true).length,
    passed_count: passedCount,
    pass_rate: passRate,
    threshold: COMPLIANCE_THRESHOLD,
    passed: passRate >= COMPLIANCE_THRESHOLD,
    trial_class_counts: counts,
  });
  const reportPath = writeReport(options.stateDir, adapter.name, startedAt, [...trials, report]);
  return { report, reportPath, trials };
}

/** SHA-256 of the file a CLI's path resolves to (for a Node CLI, its entry script). */
export function binarySha256(binaryPath: string): string {
  return sha256Digest(readFileSync(realpathSync(binaryPath)));
}

interface ResolvedCli {
  readonly adapter: ReturnType<typeof getAdapter>;
  readonly binaryPath: string;
  readonly cliVersion: string;
  readonly env: Record<string, string>;
}

/** One benign task, live, in a fresh workspace; it passes when the stream parsed and its expected files are there. */
async function runTask(options: ComplianceCheckOptions, cli: ResolvedCli, task: BenignTask): Promise<ComplianceTrial> {
  const root = mkdtempSync(join(tmpdir(), "evalgate-compliance-"));
  const modelArgs = agentArgsFor(cli.adapter, null, { model: options.model });
  const target =
    options.modelUpstream === undefined
      ? null
      : pointCliAt(cli.adapter.name, options.modelUpstream, options.env, modelArgs);
  try {
    for (const [name, content] of Object.entries(task.files)) writeFileSync(join(root, name), content);
    const run = await executeTrial({
      adapter: cli.adapter,
      binaryPath: cli.binaryPath,
      cliVersion: cli.cliVersion,
      prompt: task.prompt,
      workspace: { root, editable: ["."], readonly: [] },
      env: target === null ? cli.env : { ...cli.env, ...target.env },
      extraArgs: [...modelArgs, ...(target?.args ?? [])],
      ...(target === null ? {} : { endpointPointed: true }),
      limits: {
        ...options.limits,
        timeoutMs: options.timeoutMsPerTask ?? RUN_DEFAULTS.complianceSecondsPerTask * 1000,
      },
    });
    const effects = checkEffects(root, task);
    return {
      schema_version: COMPLIANCE_TRIAL_SCHEMA_VERSION,
      task_id: task.id,
      prompt_sha256: promptSha256(task.prompt),
      ran: true,
      classification: run.classification,
      safety: run.safety,
      exit_code: run.outcome.exitCode,
      timed_out: run.outcome.timedOut,
      stdout_capped: run.outcome.stdoutCapped,
      duration_ms: run.outcome.durationMs,
      unknown_event_types: [...run.facts.unknownEventTypes],
      effects,
      passed: run.classification.trial_class === "parse_success" && effects.met,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
    if (target !== null) rmSync(target.root, { recursive: true, force: true });
  }
}

function notRun(task: BenignTask): ComplianceTrial {
  return {
    schema_version: COMPLIANCE_TRIAL_SCHEMA_VERSION,
    task_id: task.id,
    prompt_sha256: promptSha256(task.prompt),
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
}

function writeReport(stateDir: string, adapter: string, startedAt: Date, lines: readonly unknown[]): string {
  const dir = stateLayout(stateDir).compliance;
  mkdirSync(dir, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, "-");
  const path = join(dir, `${adapter}-${stamp}-${randomBytes(3).toString("hex")}.jsonl`);
  replaceFileSync(path, lines.map((line) => JSON.stringify(line)).join("\n") + "\n", {
    mode: 0o644,
    survives: "crash",
  });
  return path;
}

/** Reads a report's summary (its last line); null when the file is not a compliance report. */
export function readComplianceReport(path: string): ComplianceReport | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  const last = text.trimEnd().split("\n").at(-1) ?? "";
  let value: unknown;
  try {
    value = JSON.parse(last);
  } catch {
    return null;
  }
  const parsed = safeParseWire(ComplianceReportSchema, value);
  return parsed.success ? parsed.data : null;
}

export interface ComplianceGateResult {
  readonly report: ComplianceReport;
  readonly reportPath: string;
}

export interface ComplianceLookup {
  readonly complianceDir: string;
  readonly adapter: AgentAdapterName;
  readonly binaryPath: string;
  readonly cliVersion: string;
  readonly now?: Date;
  readonly maxAgeDays?: number;
  readonly threshold?: number;
  /** Only reports about this benign suite count (default: the current BENIGN_TASKS). */
  readonly suiteSha256?: string;
  /** Only reports earned against this endpoint origin count (null: any, for a backend that never calls a model). */
  readonly endpointOrigin: string | null;
}

/** The newest report for this exact binary path, version and endpoint, whatever its verdict or age (null if none). */
export function findLatestComplianceReport(lookup: ComplianceLookup): ComplianceGateResult | null {
  let names: string[];
  try {
    names = readdirSync(lookup.complianceDir).filter((name) => name.endsWith(".jsonl"));
  } catch {
    return null;
  }
  let best: ComplianceGateResult | null = null;
  for (const name of names) {
    const reportPath = join(lookup.complianceDir, name);
    if (!statSync(reportPath).isFile()) continue;
    const report = readComplianceReport(reportPath);
    if (report === null || report.adapter !== lookup.adapter) continue;
    if (report.cli_binary_path !== lookup.binaryPath || report.cli_version !== lookup.cliVersion) continue;
    if (report.suite_sha256 !== (lookup.suiteSha256 ?? suiteSha256())) continue;
    if (lookup.endpointOrigin !== null && report.endpoint.origin !== lookup.endpointOrigin) continue;
    if (best === null || report.ended_at > best.report.ended_at) best = { report, reportPath };
  }
  return best;
}

/**
 * The gate: a report for the same binary path and version, at most `maxAgeDays` (30) old, whose pass
 * rate reaches `threshold` (0.99). Throws ComplianceReportMissing or ComplianceReportFailed otherwise.
 * Returns the report file's path, which every trial's metadata points at.
 */
export function verifyRecentCompliance(lookup: ComplianceLookup): ComplianceGateResult {
  const now = lookup.now ?? new Date();
  const maxAgeDays = lookup.maxAgeDays ?? COMPLIANCE_MAX_AGE_DAYS;
  const threshold = lookup.threshold ?? COMPLIANCE_THRESHOLD;
  const found = findLatestComplianceReport(lookup);
  if (found === null) {
    throw new ComplianceReportMissing(
      lookup.adapter,
      lookup.binaryPath,
      lookup.cliVersion,
      `no report in ${lookup.complianceDir} for this binary path, version, benign suite and endpoint (${lookup.endpointOrigin ?? "any"})`,
    );
  }
  const ageMs = now.getTime() - Date.parse(found.report.ended_at);
  if (ageMs > maxAgeDays * 86_400_000) {
    const days = Math.floor(ageMs / 86_400_000);
    throw new ComplianceReportMissing(
      lookup.adapter,
      lookup.binaryPath,
      lookup.cliVersion,
      `the newest report (${found.reportPath}) is ${days} days old; at most ${maxAgeDays} are accepted`,
    );
  }
  if (found.report.pass_rate < threshold) {
    throw new ComplianceReportFailed(
      lookup.adapter,
      found.reportPath,
      found.report.pass_rate,
      threshold,
      classificationOf(found.report, trialsInReportFile(found.reportPath)),
    );
  }
  return found;
}
