// The vuln-remediation rubric. It judges the files the system under test left in its workspace
// against the case's untouched input/ and expected/remediation.json: is every advisory's affected
// range gone from package.json and package-lock.json, is the lockfile consistent, does it install what
// the registry serves (registry-snapshot.ts, install-check.ts) and, where the case is runnable, does the
// installed tree pass the case's smoke check, did anything unrelated change, was a major line crossed
// needlessly. Offline; no processes: the install is unpacked in-process under the temp directory.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentErrorDetail, changedFiles, runRubric, type Rubric } from "@eval/rubric-protocol";
import type { BenchCase, BenchScoreInput, HarnessOutput } from "@eval/models";
import type { BREAKDOWN_KEYS } from "./breakdown-keys.ts";
import {
  DEPENDENCY_SECTIONS,
  entriesOf,
  floorOf,
  lockfileProblems,
  overrideFor,
  overrideKeyName,
  readJsonObject,
  satisfiesLoose,
  section,
  topLevelVersion,
  type Lockfile,
  type Manifest,
} from "./npm-project.ts";
import { installAndSmoke, registryProblems, treeProblems } from "./install-check.ts";
import { RegistrySnapshot } from "./registry-snapshot.ts";

type BreakdownKey = (typeof BREAKDOWN_KEYS)[number];
type Severity = "block" | "warn" | "info";
interface Finding {
  readonly code: string;
  readonly severity: Severity;
  readonly detail: string | null;
}

/** expected/remediation.json. */
export interface Expectation {
  readonly package: string;
  readonly advisories: ReadonlyArray<{ readonly id: string; readonly vulnerable_range: string }>;
  readonly expect_change: boolean;
  readonly max_major: Readonly<Record<string, number>>;
  readonly allowed_files: readonly string[];
  readonly allowed_dependency_changes: readonly string[];
}

export function readExpectation(expectedPath: string): Expectation {
  const raw: unknown = JSON.parse(readFileSync(join(expectedPath, "remediation.json"), "utf8"));
  const value = raw as Partial<Expectation>;
  const valid =
    typeof value.package === "string" &&
    Array.isArray(value.advisories) &&
    value.advisories.every((a) => typeof a.id === "string" && typeof a.vulnerable_range === "string") &&
    typeof value.expect_change === "boolean" &&
    typeof value.max_major === "object" &&
    Array.isArray(value.allowed_files) &&
    Array.isArray(value.allowed_dependency_changes);
  // A malformed expectation is a bench defect, not an agent failure: fail loudly.
  if (!valid)
    throw new Error(`${join(expectedPath, "remediation.json")} does not have the vuln-remediation.expected.v1 shape`);
  return value as Expectation;
}

/** Every place the project declares the package: manifest sections and a top-level override. */
function declarations(manifest: Manifest, name: string): Array<{ readonly where: string; readonly spec: string }> {
  const found = DEPENDENCY_SECTIONS.filter((s) => s !== "peerDependencies")
    .map((s) => ({ where: `package.json ${s}.${name}`, spec: section(manifest, s)[name] }))
    .filter((d): d is { where: string; spec: string } => typeof d.spec === "string");
  const override = overrideFor(manifest, name);
  if (override !== null && !override.startsWith("$"))
    found.push({ where: `package.json overrides.${name}`, spec: override });
  return found;
}

interface VulnerabilityView {
  readonly advisoriesFixed: number;
  readonly lockfileFixed: number;
  readonly manifestFixed: number;
  readonly residue: string[];
}

function judgeVulnerability(expectation: Expectation, manifest: Manifest, lock: Lockfile): VulnerabilityView {
  const name = expectation.package;
  const locked = entriesOf(lock, name);
  const declared = declarations(manifest, name);
  const residue: string[] = [];
  let advisoriesFixed = 0;
  for (const advisory of expectation.advisories) {
    let hit = false;
    for (const entry of locked) {
      if (entry.version !== null && satisfiesLoose(entry.version, advisory.vulnerable_range)) {
        residue.push(`${entry.path}@${entry.version} is affected by ${advisory.id} (${advisory.vulnerable_range})`);
        hit = true;
      }
    }
    for (const declaration of declared) {
      const floor = floorOf(declaration.spec);
      if (floor !== null && satisfiesLoose(floor, advisory.vulnerable_range)) {
        residue.push(`${declaration.where} "${declaration.spec}" admits ${floor}, affected by ${advisory.id}`);
        hit = true;
      }
    }
    if (!hit) advisoriesFixed++;
  }
  const affected = (version: string | null) =>
    version !== null && expectation.advisories.some((a) => satisfiesLoose(version, a.vulnerable_range));
  const lockedClean = locked.filter((entry) => !affected(entry.version)).length;
  const declaredClean = declared.every((d) => !affected(floorOf(d.spec)));
  return {
    advisoriesFixed: expectation.advisories.length === 0 ? 1 : advisoriesFixed / expectation.advisories.length,
    lockfileFixed: locked.length === 0 ? 1 : lockedClean / locked.length,
    manifestFixed: declaredClean ? 1 : 0,
    residue,
  };
}

function judgeScope(
  expectation: Expectation,
  changed: readonly string[],
  before: { manifest: Manifest; lock: Lockfile },
  after: { manifest: Manifest; lock: Lockfile },
): string[] {
  const allowedFiles = new Set(expectation.allowed_files);
  const allowedDeps = new Set(expectation.allowed_dependency_changes);
  const collateral = changed.filter((path) => !allowedFiles.has(path)).map((path) => `${path} changed`);
  const keys = new Set([...Object.keys(before.manifest), ...Object.keys(after.manifest)]);
  for (const key of keys) {
    if ((DEPENDENCY_SECTIONS as readonly string[]).includes(key) || key === "overrides") continue;
    if (JSON.stringify(before.manifest[key]) !== JSON.stringify(after.manifest[key]))
      collateral.push(`package.json "${key}" changed`);
  }
  for (const name of DEPENDENCY_SECTIONS) {
    const a = section(before.manifest, name);
    const b = section(after.manifest, name);
    for (const dep of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (a[dep] !== b[dep] && !allowedDeps.has(dep))
        collateral.push(`${name}.${dep}: ${a[dep] ?? "(absent)"} -> ${b[dep] ?? "(absent)"}`);
    }
  }
  const overridesBefore = JSON.stringify(before.manifest.overrides ?? {});
  const overridesAfter = JSON.stringify(after.manifest.overrides ?? {});
  if (overridesBefore !== overridesAfter) {
    const names = Object.keys((after.manifest.overrides as Record<string, unknown> | undefined) ?? {});
    const stray = names.filter((key) => !allowedDeps.has(overrideKeyName(key)));
    if (stray.length > 0) collateral.push(`overrides for ${stray.join(", ")}`);
  }
  for (const name of ["dependencies", "devDependencies", "optionalDependencies"] as const) {
    for (const dep of Object.keys(section(before.manifest, name))) {
      if (allowedDeps.has(dep)) continue;
      const was = topLevelVersion(before.lock, dep);
      const now = topLevelVersion(after.lock, dep);
      if (was !== now) collateral.push(`${dep} re-locked ${was ?? "(absent)"} -> ${now ?? "(absent)"}`);
    }
  }
  return collateral;
}

function judgeMajors(expectation: Expectation, manifest: Manifest, lock: Lockfile): string[] {
  const crossings: string[] = [];
  for (const [name, maxMajor] of Object.entries(expectation.max_major)) {
    const version = topLevelVersion(lock, name);
    if (version !== null && Number(version.split(".")[0]) > maxMajor)
      crossings.push(`${name} locked at ${version}; ${maxMajor}.x has a fix`);
    for (const declaration of declarations(manifest, name)) {
      const floor = floorOf(declaration.spec);
      if (floor !== null && Number(floor.split(".")[0]) > maxMajor)
        crossings.push(`${declaration.where} "${declaration.spec}" is past ${maxMajor}.x`);
    }
  }
  return [...new Set(crossings)];
}

const summarize = (items: readonly string[]): string =>
  items.length <= 4 ? items.join("; ") : `${items.slice(0, 4).join("; ")}; and ${items.length - 4} more`;

function result(breakdown: Record<BreakdownKey, number>, findings: readonly Finding[], score: number): BenchScoreInput {
  // A block-severity finding means the result cannot be used as it is: it halves whatever partial
  // credit the breakdown earned, so a blocked case never outscores a merely imperfect one.
  const blocked = findings.some((f) => f.severity === "block");
  return {
    passed: findings.every((f) => f.severity === "info"),
    score: Math.round(score * (blocked ? 0.5 : 1) * 10000) / 10000,
    breakdown,
    failure_modes: findings.map((f) => ({ code: f.code, severity: f.severity, detail: f.detail })),
    cost_usd: 0,
    wall_clock_ms: 0,
  };
}

const ZERO: Record<BreakdownKey, number> = {
  advisories_fixed: 0,
  lockfile_fixed: 0,
  manifest_fixed: 0,
  lockfile_consistent: 0,
  install_verified: 0,
  scope_clean: 0,
  major_line_kept: 0,
};
const INSTALL_CODES = new Set(["unknown_version", "integrity_mismatch", "install_broken", "smoke_failed"]);

let defaultSnapshot: RegistrySnapshot | null = null;
const snapshot = (): RegistrySnapshot => (defaultSnapshot ??= new RegistrySnapshot());

/** The judgement before the smoke check: findings so far, and the locked tree when the install may run. */
interface Judgement {
  readonly findings: Finding[];
  readonly breakdown: Record<BreakdownKey, number>;
  readonly lock: Lockfile | null;
}

/** Weighs the breakdown into the score; the install check counts once every finding is in. */
function finish(judgement: Judgement): BenchScoreInput {
  const { findings } = judgement;
  const breakdown = { ...judgement.breakdown };
  if (judgement.lock !== null) breakdown.install_verified = findings.some((f) => INSTALL_CODES.has(f.code)) ? 0 : 1;
  // Security gates the score: with no advisory fixed it is 0 however tidy the change (a no-op scores
  // 0); quality (consistency, a verified install, scope, major line) then scales a fix between half and full credit.
  const security =
    breakdown.advisories_fixed * (0.6 + 0.25 * breakdown.lockfile_fixed + 0.15 * breakdown.manifest_fixed);
  const quality =
    0.2 * breakdown.lockfile_consistent +
    0.2 * breakdown.install_verified +
    0.3 * breakdown.scope_clean +
    0.3 * breakdown.major_line_kept;
  return result(breakdown, findings, judgement.lock === null ? 0 : security * (0.5 + 0.5 * quality));
}

/** Everything but the smoke check: reads, semver and the registry snapshot. */
function judge(
  benchCase: BenchCase,
  harnessOutput: HarnessOutput,
  workspacePath: string | null,
  registry: RegistrySnapshot,
): Judgement {
  const expectation = readExpectation(benchCase.expected_path);
  const trialClass = typeof harnessOutput.trial_class === "string" ? harnessOutput.trial_class : null;
  const findings: Finding[] = [];
  if (trialClass === "cli_error") {
    const why = agentErrorDetail(harnessOutput);
    return { findings: [{ code: "agent_cli_error", severity: "block", detail: why }], breakdown: ZERO, lock: null };
  }
  if (trialClass === "model_refusal")
    findings.push({ code: "agent_refused", severity: "info", detail: "the agent declined the task" });
  if (trialClass === "parse_failure" || trialClass === "format_drift")
    findings.push({ code: "agent_stream_unparsed", severity: "info", detail: `trial classified ${trialClass}` });
  if (workspacePath === null)
    return {
      findings: [
        ...findings,
        { code: "workspace_missing", severity: "block", detail: "no workspace_path in the rubric context" },
      ],
      breakdown: ZERO,
      lock: null,
    };

  const before = {
    manifest: readJsonObject<Manifest>(benchCase.input_path, "package.json"),
    lock: readJsonObject<Lockfile>(benchCase.input_path, "package-lock.json"),
  };
  if (!before.manifest.ok || !before.lock.ok)
    throw new Error(
      `case input is unreadable: ${[before.manifest, before.lock].map((r) => (r.ok ? "" : r.problem)).join(" ")}`,
    );
  const manifest = readJsonObject<Manifest>(workspacePath, "package.json");
  const lock = readJsonObject<Lockfile>(workspacePath, "package-lock.json");
  if (!manifest.ok || !lock.ok) {
    const problems = [manifest, lock].flatMap((r) => (r.ok ? [] : [r.problem]));
    return {
      findings: [...findings, { code: "project_unreadable", severity: "block", detail: problems.join("; ") }],
      breakdown: ZERO,
      lock: null,
    };
  }

  const changed = changedFiles(benchCase.input_path, workspacePath);
  const vulnerability = judgeVulnerability(expectation, manifest.value, lock.value);
  const inconsistencies = lockfileProblems(manifest.value, lock.value);
  const registryFacts = registryProblems(lock.value, registry);
  const broken = treeProblems(manifest.value, lock.value, registry);
  const collateral = judgeScope(
    expectation,
    changed,
    { manifest: before.manifest.value, lock: before.lock.value },
    { manifest: manifest.value, lock: lock.value },
  );
  const crossings = judgeMajors(expectation, manifest.value, lock.value);

  if (vulnerability.residue.length > 0)
    findings.push({ code: "still_vulnerable", severity: "block", detail: summarize(vulnerability.residue) });
  if (inconsistencies.length > 0)
    findings.push({ code: "lockfile_inconsistent", severity: "block", detail: summarize(inconsistencies) });
  if (registryFacts.unknown.length > 0)
    findings.push({ code: "unknown_version", severity: "block", detail: summarize(registryFacts.unknown) });
  if (registryFacts.integrity.length > 0)
    findings.push({ code: "integrity_mismatch", severity: "block", detail: summarize(registryFacts.integrity) });
  if (broken.length > 0) findings.push({ code: "install_broken", severity: "block", detail: summarize(broken) });
  if (!expectation.expect_change && changed.length > 0)
    findings.push({ code: "change_on_negative", severity: "warn", detail: `changed ${summarize(changed)}` });
  else if (collateral.length > 0)
    findings.push({ code: "collateral_change", severity: "warn", detail: summarize(collateral) });
  if (crossings.length > 0)
    findings.push({ code: "needless_major_bump", severity: "warn", detail: summarize(crossings) });
  if (expectation.expect_change && changed.length === 0)
    findings.push({ code: "no_change", severity: "info", detail: "the workspace is identical to the input" });

  const scopeClean = (expectation.expect_change ? collateral.length === 0 : changed.length === 0) ? 1 : 0;
  const breakdown: Record<BreakdownKey, number> = {
    advisories_fixed: vulnerability.advisoriesFixed,
    lockfile_fixed: vulnerability.lockfileFixed,
    manifest_fixed: vulnerability.manifestFixed,
    lockfile_consistent: inconsistencies.length === 0 ? 1 : 0,
    install_verified: 1,
    scope_clean: scopeClean,
    major_line_kept: crossings.length === 0 ? 1 : 0,
  };
  return { findings, breakdown, lock: lock.value };
}

/** The score without running anything: every check but the smoke check. */
export function scoreCase(
  benchCase: BenchCase,
  harnessOutput: HarnessOutput,
  workspacePath: string | null,
  registry: RegistrySnapshot = snapshot(),
): BenchScoreInput {
  return finish(judge(benchCase, harnessOutput, workspacePath, registry));
}

/**
 * The full score: scoreCase's checks, then, when the case has a smoke check (expected/smoke.cjs) and no
 * block-severity finding stands in the way, the locked tree installed from the snapshot and the smoke
 * check run on it (in a temp directory removed afterwards).
 */
export async function scoreInstalled(
  benchCase: BenchCase,
  harnessOutput: HarnessOutput,
  workspacePath: string | null,
  registry: RegistrySnapshot = snapshot(),
): Promise<BenchScoreInput> {
  const judgement = judge(benchCase, harnessOutput, workspacePath, registry);
  const smokePath = join(benchCase.expected_path, "smoke.cjs");
  if (judgement.lock === null || judgement.findings.some((f) => f.severity === "block") || !existsSync(smokePath))
    return finish(judgement);
  const root = mkdtempSync(join(tmpdir(), "vuln-install-"));
  try {
    const outcome = await installAndSmoke(judgement.lock, registry, benchCase.input_path, smokePath, root);
    const advised = readExpectation(benchCase.expected_path).package;
    if (outcome.kind === "install_broken")
      judgement.findings.push({ code: "install_broken", severity: "block", detail: outcome.detail });
    if (outcome.kind === "failed")
      judgement.findings.push({
        code: "smoke_failed",
        severity: "block",
        detail: `with ${advised}@${topLevelVersion(judgement.lock, advised) ?? "(nested)"} installed: ${outcome.detail}`,
      });
    if (outcome.kind === "skipped")
      judgement.findings.push({ code: "smoke_skipped", severity: "info", detail: outcome.detail });
    return finish(judgement);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const rubric: Rubric = {
  score(benchCase, harnessOutput, context) {
    return scoreInstalled(benchCase, harnessOutput, context.workspacePath);
  },
};

export default rubric;

if (import.meta.main) await runRubric(rubric);
