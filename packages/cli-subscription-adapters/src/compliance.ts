import { randomBytes } from "node:crypto";
import { sha256Digest } from "@eval/hashing";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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
import { getAdapter } from "./adapters.ts";
import { buildCliEnv, readVersion, resolveBinary } from "./binary.ts";
import { classificationOf, trialsInReportFile } from "./compliance-failure.ts";
import { ComplianceReportFailed, ComplianceReportMissing } from "./errors.ts";
import { promptSha256 } from "./prompt.ts";
import { executeTrial } from "./trial.ts";
import type { TrialLimits } from "./trial.ts";
import { replaceFileSync } from "@eval/durable-fs";
import { stateLayout } from "@eval/state-layout";
import { RUN_DEFAULTS } from "@eval/models/defaults";

export interface BenignTask {
  readonly id: string;
  readonly prompt: string;
  /** Files placed in the task's workspace (all editable). */
  readonly files: Readonly<Record<string, string>>;
}

/**
 * The benign task suite: 20 harmless requests any working agent CLI completes. A trial passes when the
 * adapter classifies it `parse_success`: this gate measures whether evalgate can read the CLI's output,
 * not the model's skill.
 */
export const BENIGN_TASKS: readonly BenignTask[] = Object.freeze<BenignTask[]>([
  { id: "say-hello", prompt: "Reply with the single word: hello", files: {} },
  { id: "add-numbers", prompt: "What is 17 + 25? Reply with just the number.", files: {} },
  { id: "capital-city", prompt: "What is the capital of France? Reply with one word.", files: {} },
  { id: "reverse-word", prompt: "Reverse the letters of the word 'stream' and reply with only the result.", files: {} },
  { id: "count-vowels", prompt: "How many vowels are in the word 'evaluation'? Reply with just the number.", files: {} },
  { id: "uppercase", prompt: "Convert 'benign task' to upper case and reply with only the result.", files: {} },
  { id: "list-colors", prompt: "Name three primary colors of light, comma-separated, nothing else.", files: {} },
  { id: "json-echo", prompt: 'Reply with exactly this JSON and nothing else: {"ok": true}', files: {} },
  { id: "haiku-topic", prompt: "Write a haiku about autumn leaves.", files: {} },
  { id: "explain-variable", prompt: "In one sentence, what is a variable in programming?", files: {} },
  { id: "read-note", prompt: "Read the file note.txt in the current directory and reply with its first line only.", files: { "note.txt": "the quick brown fox\nsecond line\n" } },
  { id: "count-lines", prompt: "How many lines does data.txt in the current directory have? Reply with just the number.", files: { "data.txt": "a\nb\nc\nd\n" } },
  { id: "list-files", prompt: "List the file names in the current directory, one per line, nothing else.", files: { "a.txt": "a\n", "b.md": "# b\n" } },
  { id: "fix-typo", prompt: "In greeting.txt, fix the typo 'helo' to 'hello'. Change nothing else.", files: { "greeting.txt": "helo world\n" } },
  { id: "create-file", prompt: "Create a file named done.txt containing the single line: done", files: {} },
  { id: "append-line", prompt: "Append the line 'three' to the end of list.txt.", files: { "list.txt": "one\ntwo\n" } },
  { id: "python-function", prompt: "In math_utils.py, add a function double(x) that returns x * 2.", files: { "math_utils.py": "def inc(x):\n    return x + 1\n" } },
  { id: "explain-code", prompt: "Explain in one sentence what the function in add.js does.", files: { "add.js": "export function add(a, b) {\n  return a + b;\n}\n" } },
  { id: "sort-words", prompt: "Sort these words alphabetically and reply with them space-separated: pear apple fig", files: {} },
  { id: "translate", prompt: "Translate 'good morning' into Spanish. Reply with the translation only.", files: {} },
]);

export const COMPLIANCE_THRESHOLD = 0.99;
export const COMPLIANCE_MAX_AGE_DAYS = 30;

/** SHA-256 over the suite's ids, prompts and files: which suite a report's verdict is about. */
export function suiteSha256(tasks: readonly BenignTask[] = BENIGN_TASKS): string {
  return sha256Digest(...tasks.flatMap((task) => [JSON.stringify([task.id, task.prompt, Object.entries(task.files).sort()]), "\n"]));
}

export interface ComplianceCheckOptions {
  readonly adapter: AgentAdapterName;
  /** Where reports go: `<stateDir>/compliance/`. */
  readonly stateDir: string;
  readonly binaryPath?: string;
  /** The host environment the CLI's allowlisted variables come from. */
  readonly env: Readonly<Record<string, string | undefined>>;
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
  const startedAt = now();
  const trials: ComplianceTrial[] = [];
  let authFailed = false;
  for (const [index, task] of tasks.entries()) {
    let trial: ComplianceTrial;
    if (authFailed && options.stopAfterAuthFailure !== false) {
      trial = notRun(task);
    } else {
      const root = mkdtempSync(join(tmpdir(), "evalgate-compliance-"));
      try {
        for (const [name, content] of Object.entries(task.files)) writeFileSync(join(root, name), content);
        const run = await executeTrial({
          adapter,
          binaryPath,
          cliVersion,
          prompt: task.prompt,
          workspace: { root, editable: ["."], readonly: [] },
          env,
          limits: { ...options.limits, timeoutMs: options.timeoutMsPerTask ?? RUN_DEFAULTS.complianceSecondsPerTask * 1000 },
        });
        trial = {
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
        };
        if (run.classification.cli_error_kind === "auth_failure") authFailed = true;
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }
    trials.push(trial);
    options.onTrial?.(trial, index, tasks.length);
  }
  const counts = Object.fromEntries(TrialClassSchema.options.map((name) => [name, 0])) as Record<TrialClass, number>;
  for (const trial of trials) if (trial.classification !== null) counts[trial.classification.trial_class] += 1;
  const passRate = counts.parse_success / tasks.length;
  const report = parseWire(ComplianceReportSchema, {
    schema_version: COMPLIANCE_REPORT_SCHEMA_VERSION,
    adapter: adapter.name,
    cli_binary_path: binaryPath,
    cli_version: cliVersion,
    suite_sha256: suiteSha256(tasks),
    started_at: startedAt.toISOString(),
    ended_at: now().toISOString(),
    task_count: tasks.length,
    ran_count: trials.filter((trial) => trial.ran).length,
    parse_success_count: counts.parse_success,
    pass_rate: passRate,
    threshold: COMPLIANCE_THRESHOLD,
    passed: passRate >= COMPLIANCE_THRESHOLD,
    trial_class_counts: counts,
  });
  const reportPath = writeReport(options.stateDir, adapter.name, startedAt, [...trials, report]);
  return { report, reportPath, trials };
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
  };
}

function writeReport(stateDir: string, adapter: string, startedAt: Date, lines: readonly unknown[]): string {
  const dir = stateLayout(stateDir).compliance;
  mkdirSync(dir, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, "-");
  const path = join(dir, `${adapter}-${stamp}-${randomBytes(3).toString("hex")}.jsonl`);
  replaceFileSync(path, lines.map((line) => JSON.stringify(line)).join("\n") + "\n", { mode: 0o644, survives: "crash" });
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
}

/** The newest report for this exact binary path and version, whatever its verdict or age (null if none). */
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
    throw new ComplianceReportMissing(lookup.adapter, lookup.binaryPath, lookup.cliVersion, `no report in ${lookup.complianceDir} for this binary path, version and benign suite`);
  }
  const ageMs = now.getTime() - Date.parse(found.report.ended_at);
  if (ageMs > maxAgeDays * 86_400_000) {
    const days = Math.floor(ageMs / 86_400_000);
    throw new ComplianceReportMissing(lookup.adapter, lookup.binaryPath, lookup.cliVersion, `the newest report (${found.reportPath}) is ${days} days old; at most ${maxAgeDays} are accepted`);
  }
  if (found.report.pass_rate < threshold) {
    throw new ComplianceReportFailed(lookup.adapter, found.reportPath, found.report.pass_rate, threshold, classificationOf(found.report, trialsInReportFile(found.reportPath)));
  }
  return found;
}
