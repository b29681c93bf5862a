import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import type { TrustTiersFile } from "@eval/models";
import { ignoreWarnings, isEvalError, type EvalErrorCode, type WarningSink } from "@eval/errors";
import { inspectCases } from "./case-loader.ts";
import { FenceAssertionFailed, TaskClassAlreadyRegistered, TaskClassInvalid } from "./errors.ts";
import { readText } from "./files.ts";
import { finding, type FenceAssertion, type Finding } from "./findings.ts";
import { inspectTaskClass, type DiscoveredRegistration, type TaskClassFinding } from "./task-class-inspection.ts";
import { importRegistration, listBenchDirs } from "./task-class-loader.ts";

/** The seed's floor for every tier a task class declares, when no trust-tiers file says otherwise: 10 cases, 5 held out. */
export const DEFAULT_TIER_FLOOR = Object.freeze({ min_cases: 10, min_held_out: 5 });

export interface FenceFailure {
  readonly assertion: FenceAssertion | "registration";
  /** The exact file or directory at fault. */
  readonly path: string;
  readonly code: EvalErrorCode;
  readonly message: string;
}

export interface FenceTaskClassSummary {
  readonly name: string;
  readonly bench_path: string;
  readonly cases: number;
  readonly held_out: number;
  readonly min_cases: number;
  readonly min_cases_for_promotion: Readonly<Record<string, number>>;
}

export interface FenceReport {
  readonly ok: boolean;
  readonly bench_root: string;
  readonly task_classes: readonly FenceTaskClassSummary[];
  /** bench/* directories without a registration.ts (not task classes; listed so none goes unnoticed). */
  readonly unregistered_dirs: readonly string[];
  readonly failures: readonly FenceFailure[];
  readonly duration_ms: number;
}

export interface FenceOptions {
  readonly benchRoot: string;
  /**
   * The trust tiers (docs/trust-tiers.yaml, read by @eval/promotion's loadTierConfig): each tier's
   * min_cases and min_held_out decide assertion 3. Absent: DEFAULT_TIER_FLOOR for every tier.
   */
  readonly trustTiers?: TrustTiersFile | null;
  readonly onWarning?: WarningSink;
  readonly now?: Date;
}

/**
 * The fence: checks every task class under `benchRoot` against the bench contract and reports every
 * failure with the exact path, without stopping at the first. Assertions: directory contract, minimum
 * case count, held-out split per declared tier, literal registration name, breakdown-key ban,
 * failure-mode taxonomy, case ids (unique, equal to the directory), case files, digests.
 * Throws only when the bench root itself is missing (BenchDirMissing).
 */
export async function runFence(options: FenceOptions): Promise<FenceReport> {
  const started = performance.now();
  // The TypeScript parser is loaded only here: importing @eval/registry (every registration.ts does) stays light.
  const { registrationLiteralName, staticBreakdownKeys } = await import("./static-checks.ts");
  const benchRoot = resolve(options.benchRoot);
  const onWarning = options.onWarning ?? ignoreWarnings;
  const trustTiers = options.trustTiers ?? null;
  const { registered, unregistered } = await listBenchDirs(benchRoot);
  const findings: (Finding | TaskClassFinding)[] = [];
  const summaries: FenceTaskClassSummary[] = [];

  const discovered: DiscoveredRegistration[] = [];
  for (const directory of registered) {
    const registrationPath = join(benchRoot, directory, "registration.ts");
    const literal = registrationLiteralName(await readText(registrationPath));
    if (!literal.ok) {
      findings.push(finding("literal-name", registrationPath, new TaskClassInvalid(registrationPath, literal.reason)));
      continue;
    }
    try {
      discovered.push(await importRegistration(benchRoot, directory));
    } catch (error) {
      if (!isEvalError(error)) throw error;
      findings.push({ assertion: "registration", path: registrationPath, error });
    }
  }

  // A registration in the directory named after its class is the rightful claimant of that name.
  discovered.sort((a, b) => Number(b.directory === b.registration.name) - Number(a.directory === a.registration.name));
  const claimedBy = new Map<string, string>();
  for (const found of discovered) {
    const { registration, registrationPath } = found;
    const earlier = claimedBy.get(registration.name);
    if (earlier !== undefined) {
      findings.push({
        assertion: "registration",
        path: registrationPath,
        error: new TaskClassAlreadyRegistered(registration.name, earlier, registrationPath),
      });
      continue;
    }
    claimedBy.set(registration.name, registrationPath);
    const files = await inspectTaskClass(benchRoot, found, { staticKeys: staticBreakdownKeys });
    findings.push(...files.findings);
    if (!files.located) continue;
    const benchPath = files.benchPath;
    const checked = await checkCases(
      {
        name: registration.name,
        benchPath,
        registrationPath,
        minCases: registration.options.min_cases,
        minCasesForPromotion: registration.options.min_cases_for_promotion,
      },
      trustTiers,
      {
        onWarning,
        ...(options.now === undefined ? {} : { now: options.now }),
      },
    );
    findings.push(...checked.findings);
    summaries.push(checked.summary);
  }

  const seen = new Set<string>();
  const failures = findings
    .map((entry) => ({
      assertion: entry.assertion,
      path: entry.path,
      code: entry.error.code,
      message: entry.error.message,
    }))
    .filter((failure) => {
      const key = `${failure.path}\0${failure.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  return {
    ok: failures.length === 0,
    bench_root: benchRoot,
    task_classes: summaries,
    unregistered_dirs: unregistered.map((directory) => join(benchRoot, directory)),
    failures,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
  };
}

interface FencedTaskClass {
  readonly name: string;
  readonly benchPath: string;
  readonly registrationPath: string;
  readonly minCases: number;
  readonly minCasesForPromotion: Readonly<Record<string, number>>;
}

/** The case assertions of one task class: its cases (inspectCases), min_cases, and each declared tier's floor. */
async function checkCases(
  taskClass: FencedTaskClass,
  trustTiers: TrustTiersFile | null,
  options: { readonly onWarning: WarningSink; readonly now?: Date },
): Promise<{ findings: Finding[]; summary: FenceTaskClassSummary }> {
  const { benchPath } = taskClass;
  const inspection = await inspectCases(taskClass, options);
  const findings: Finding[] = [...inspection.findings];
  const casesPath = join(benchPath, "cases");
  const heldOut = inspection.found.filter((entry) => entry.curationClass === "held-out").length;
  if (inspection.found.length < taskClass.minCases) {
    findings.push(
      finding(
        "min-cases",
        casesPath,
        new FenceAssertionFailed(
          casesPath,
          `task class "${taskClass.name}" has ${inspection.found.length} cases; its registration asks for at least ${taskClass.minCases} (min_cases)`,
        ),
      ),
    );
  }
  for (const [tier, minPassed] of Object.entries(taskClass.minCasesForPromotion)) {
    const floor =
      trustTiers === null ? DEFAULT_TIER_FLOOR : trustTiers.tiers.find((candidate) => candidate.name === tier);
    if (floor === undefined) {
      findings.push(
        finding(
          "curation-split",
          taskClass.registrationPath,
          new TaskClassInvalid(
            taskClass.registrationPath,
            `min_cases_for_promotion names tier "${tier}", which the trust tiers file does not define (tiers: ${trustTiers!.tiers.map((t) => t.name).join(", ")})`,
          ),
        ),
      );
      continue;
    }
    const cases = inspection.found.length;
    const unreachable = [
      ...(cases < floor.min_cases ? [`${cases} cases (need >= ${floor.min_cases})`] : []),
      ...(heldOut < floor.min_held_out ? [`${heldOut} held-out cases (need >= ${floor.min_held_out})`] : []),
      ...(minPassed > cases ? [`fewer cases (${cases}) than the ${minPassed} passes it asks for`] : []),
    ];
    if (unreachable.length > 0) {
      findings.push(
        finding(
          "curation-split",
          casesPath,
          new FenceAssertionFailed(
            casesPath,
            `task class "${taskClass.name}" declares ${tier} in min_cases_for_promotion but has ${unreachable.join(" and ")}: grow the bench or drop the tier`,
          ),
        ),
      );
    }
  }
  const summary = {
    name: taskClass.name,
    bench_path: benchPath,
    cases: inspection.found.length,
    held_out: heldOut,
    min_cases: taskClass.minCases,
    min_cases_for_promotion: taskClass.minCasesForPromotion,
  };
  return { findings, summary };
}
