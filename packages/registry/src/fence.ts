import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { formatIssues, safeParseWire, TrustTiersFileSchema, type TrustTiersFile } from "@eval/models";
import { ignoreWarnings, isEvalError, type EvalErrorCode, type WarningSink } from "@eval/errors";
import { parse as parseYaml } from "yaml";
import { inspectCases } from "./case-loader.ts";
import { BenchDirMissing, FenceAssertionFailed, TaskClassAlreadyRegistered, TaskClassIncomplete, TaskClassInvalid, TrustTiersInvalid } from "./errors.ts";
import { entryKind, readText } from "./files.ts";
import { finding, type FenceAssertion, type Finding } from "./findings.ts";
import {
  breakdownKeyProblem,
  importRegistration,
  loadBreakdownKeys,
  listBenchDirs,
  loadFailureModes,
  requiredFiles,
  type DiscoveredRegistration,
} from "./task-class-loader.ts";

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
  /** docs/trust-tiers.yaml: each tier's min_cases and min_held_out decide assertion 3. Default: DEFAULT_TIER_FLOOR. */
  readonly trustTiersPath?: string;
  readonly onWarning?: WarningSink;
  readonly now?: Date;
}

async function readTrustTiers(path: string): Promise<TrustTiersFile> {
  let raw: unknown;
  try {
    raw = parseYaml(await readText(path));
  } catch (error) {
    throw new TrustTiersInvalid(path, `cannot be read as YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  const parsed = safeParseWire(TrustTiersFileSchema, raw);
  if (!parsed.success) throw new TrustTiersInvalid(path, formatIssues(parsed.issues));
  return parsed.data;
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
  const trustTiers = options.trustTiersPath !== undefined && (await entryKind(options.trustTiersPath)) === "file" ? await readTrustTiers(options.trustTiersPath) : null;
  const { registered, unregistered } = await listBenchDirs(benchRoot);
  const findings: (Finding | { assertion: "registration"; path: string; error: Finding["error"] })[] = [];
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
      findings.push({ assertion: "registration", path: registrationPath, error: new TaskClassAlreadyRegistered(registration.name, earlier, registrationPath) });
      continue;
    }
    claimedBy.set(registration.name, registrationPath);
    const benchPath = join(benchRoot, registration.name);
    if ((await entryKind(benchPath)) !== "directory") {
      findings.push(finding("directory-contract", benchPath, new BenchDirMissing(benchPath, `task class "${registration.name}" is registered by ${registrationPath} but its bench directory is missing`)));
      continue;
    }
    if (found.directory !== registration.name) {
      findings.push({ assertion: "registration", path: registrationPath, error: new TaskClassInvalid(registrationPath, `registers "${registration.name}" but sits in bench/${found.directory}/; the directory must be named after the task class`) });
      continue;
    }
    const before = findings.length;
    for (const file of requiredFiles(registration)) {
      const path = join(benchPath, file);
      if ((await entryKind(path)) !== "file") findings.push(finding("directory-contract", path, new TaskClassIncomplete(registration.name, path)));
    }
    const keysPath = join(benchPath, "breakdown-keys.ts");
    if ((await entryKind(keysPath)) === "file") {
      const keys = staticBreakdownKeys(await readText(keysPath));
      if (!keys.ok) findings.push(finding("breakdown-keys", keysPath, new TaskClassInvalid(keysPath, keys.reason)));
      else {
        keys.value.forEach((key, index) => {
          const problem = breakdownKeyProblem(key) ?? (keys.value.indexOf(key) !== index ? `"${key}" appears twice` : null);
          if (problem !== null) findings.push(finding("breakdown-keys", keysPath, new TaskClassInvalid(keysPath, `BREAKDOWN_KEYS: ${problem}`)));
        });
      }
    }
    const modesPath = join(benchPath, "failure_modes.yaml");
    if ((await entryKind(modesPath)) === "file") {
      try {
        await loadFailureModes(modesPath);
      } catch (error) {
        if (!isEvalError(error)) throw error;
        findings.push(finding("failure-modes", modesPath, error));
      }
    }
    if (findings.length === before) {
      // The static check above reads the source; this also runs it (a module that throws on import).
      try {
        await loadBreakdownKeys(keysPath);
      } catch (error) {
        if (!isEvalError(error)) throw error;
        findings.push(finding("breakdown-keys", keysPath, error));
      }
    }
    const taskClass = { name: registration.name, benchPath, registrationPath, minCases: registration.options.min_cases, minCasesForPromotion: registration.options.min_cases_for_promotion };
    const inspection = await inspectCases(taskClass, { onWarning, ...(options.now === undefined ? {} : { now: options.now }) });
    findings.push(...inspection.findings);
    const casesPath = join(benchPath, "cases");
    const heldOut = inspection.found.filter((entry) => entry.curationClass === "held-out").length;
    if (inspection.found.length < taskClass.minCases) {
      findings.push(finding("min-cases", casesPath, new FenceAssertionFailed(casesPath, `task class "${taskClass.name}" has ${inspection.found.length} cases; its registration asks for at least ${taskClass.minCases} (min_cases)`)));
    }
    for (const [tier, minPassed] of Object.entries(taskClass.minCasesForPromotion)) {
      const floor = trustTiers === null ? DEFAULT_TIER_FLOOR : trustTiers.tiers.find((candidate) => candidate.name === tier);
      if (floor === undefined) {
        findings.push(finding("curation-split", taskClass.registrationPath, new TaskClassInvalid(taskClass.registrationPath, `min_cases_for_promotion names tier "${tier}", which the trust tiers file does not define (tiers: ${trustTiers!.tiers.map((t) => t.name).join(", ")})`)));
        continue;
      }
      const cases = inspection.found.length;
      const unreachable = [
        ...(cases < floor.min_cases ? [`${cases} cases (need >= ${floor.min_cases})`] : []),
        ...(heldOut < floor.min_held_out ? [`${heldOut} held-out cases (need >= ${floor.min_held_out})`] : []),
        ...(minPassed > cases ? [`fewer cases (${cases}) than the ${minPassed} passes it asks for`] : []),
      ];
      if (unreachable.length > 0) {
        findings.push(finding("curation-split", casesPath, new FenceAssertionFailed(casesPath, `task class "${taskClass.name}" declares ${tier} in min_cases_for_promotion but has ${unreachable.join(" and ")}: grow the bench or drop the tier`)));
      }
    }
    summaries.push({
      name: taskClass.name,
      bench_path: benchPath,
      cases: inspection.found.length,
      held_out: heldOut,
      min_cases: taskClass.minCases,
      min_cases_for_promotion: taskClass.minCasesForPromotion,
    });
  }

  const seen = new Set<string>();
  const failures = findings
    .map((entry) => ({ assertion: entry.assertion, path: entry.path, code: entry.error.code, message: entry.error.message }))
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
