// `evalgate bench check`: does every case prove it is solvable and that the rubric is sensitive? Per case
// the rubric (in its isolation, exactly as a run launches it) scores: the reference fix (must pass), the
// untouched input (the no-op: must fail, except on a negative case where changing nothing is the answer),
// and every near-miss the task class declares (must fail with the failure mode the case names).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUBRIC_REQUEST_SCHEMA_VERSION } from "@eval/models";
import type { BenchCase, RubricRequest } from "@eval/models";
import type { WarningSink } from "@eval/errors";
import { loadTaskClass, readCaseControls, readNearMissKinds, selectCases, TaskClassRegistry } from "@eval/registry";
import type { CaseControls, TaskClass } from "@eval/registry";
import { handOverTree } from "@eval/sandbox";
import { NoCasesSelected } from "./errors.ts";
import { caseFilterOf } from "./prepare-run.ts";
import { copyTree, DEFAULT_RUBRIC_TIMEOUT_S } from "./execute-case.ts";
import { runPool } from "./pool.ts";
import { prepareRubricLauncher } from "./rubric-isolation.ts";
import { sandboxLimits } from "./sandbox-limits.ts";
import type { RubricLauncher, SandboxMode } from "./rubric-isolation.ts";
import { resolveRubricScore } from "./scoring.ts";

export interface BenchCheckOptions {
  readonly taskClass: string;
  readonly benchRoot: string;
  /** Only the cases whose case_id matches this glob (default all). */
  readonly caseFilter?: string;
  readonly onWarning?: WarningSink;
  /** Default `bwrap`, as a run. */
  readonly sandbox?: SandboxMode;
  /** Where the workspaces and rubric cwds live (default the OS temp dir). */
  readonly tempRoot?: string;
  /** Rubrics at a time (default 2). */
  readonly concurrency?: number;
}

/** What one control must do: pass, fail, or fail with this failure mode among its findings. */
export type ControlExpectation = "pass" | "fail" | { readonly failureMode: string };

export interface ControlCheck {
  readonly caseId: string;
  /** `reference`, `no-op`, or a near-miss kind. */
  readonly control: string;
  readonly expected: ControlExpectation;
  /** The rubric's verdict, null when it did not answer (then `error` says why). */
  readonly passed: boolean | null;
  readonly failureModes: readonly string[];
  readonly error: string | null;
  readonly ok: boolean;
}

export interface BenchCheckResult {
  readonly taskClass: string;
  /** The near-miss kinds the task class declares, in declaration order. */
  readonly kinds: readonly string[];
  readonly checks: readonly ControlCheck[];
  readonly notApplicable: ReadonlyArray<{ readonly caseId: string; readonly kind: string; readonly reason: string }>;
  /** Missing or undeclared controls: a bench defect even when every check that ran is ok. */
  readonly problems: readonly string[];
  readonly ok: boolean;
}

interface Planned {
  readonly benchCase: BenchCase;
  readonly control: string;
  readonly overlay: string | null;
  readonly expected: ControlExpectation;
}

/** The controls of one case, and the problems of its controls.json against the declared kinds. */
function planCase(
  benchCase: BenchCase,
  kinds: readonly string[],
): { planned: Planned[]; notApplicable: BenchCheckResult["notApplicable"]; problems: string[] } {
  const negative = benchCase.disposition === "negative";
  const planned: Planned[] = [{ benchCase, control: "no-op", overlay: null, expected: negative ? "pass" : "fail" }];
  const controls: CaseControls | null = readCaseControls(benchCase);
  if (controls === null)
    return {
      planned,
      notApplicable: [],
      problems: [`${benchCase.case_id}: no controls/controls.json, so no reference fix proves the case solvable`],
    };
  planned.unshift({ benchCase, control: "reference", overlay: controls.reference, expected: "pass" });
  const problems: string[] = [];
  const notApplicable: Array<{ caseId: string; kind: string; reason: string }> = [];
  for (const nearMiss of controls.nearMisses) {
    if (!kinds.includes(nearMiss.kind))
      problems.push(`${benchCase.case_id}: near miss "${nearMiss.kind}" is not declared in near-misses.yaml`);
    else if ("notApplicable" in nearMiss)
      notApplicable.push({ caseId: benchCase.case_id, kind: nearMiss.kind, reason: nearMiss.notApplicable });
    else
      planned.push({
        benchCase,
        control: nearMiss.kind,
        overlay: nearMiss.directory,
        expected: { failureMode: nearMiss.expect },
      });
  }
  const covered = new Set(controls.nearMisses.map((n) => n.kind));
  for (const kind of kinds)
    if (!covered.has(kind))
      problems.push(
        `${benchCase.case_id}: declares nothing for near miss "${kind}" (add it, or say why it is not_applicable)`,
      );
  return { planned, notApplicable, problems };
}

function judged(expected: ControlExpectation, passed: boolean, failureModes: readonly string[]): boolean {
  if (expected === "pass") return passed;
  if (expected === "fail") return !passed;
  return !passed && failureModes.includes(expected.failureMode);
}

async function runControl(
  item: Planned,
  launcher: RubricLauncher,
  tempRoot: string,
  taskClass: TaskClass,
): Promise<ControlCheck> {
  const base = { caseId: item.benchCase.case_id, control: item.control, expected: item.expected };
  const workspace = mkdtempSync(join(tempRoot, "ws-"));
  try {
    copyTree(item.benchCase.input_path, workspace);
    if (item.overlay !== null) copyTree(item.overlay, workspace);
    // As root the rubric runs as the sandbox's unprivileged uid: the workspace must be its to read.
    await handOverTree(workspace);
    const request = {
      schema_version: RUBRIC_REQUEST_SCHEMA_VERSION,
      case: item.benchCase,
      harness_output: {},
      context: { workspace_path: workspace },
    } as RubricRequest;
    const outcome = await launcher.run({
      request,
      readablePaths: [item.benchCase.case_path, workspace],
      timeoutMs: (item.benchCase.rubric_wall_clock_seconds ?? DEFAULT_RUBRIC_TIMEOUT_S) * 1000,
    });
    if (outcome.kind !== "ok") {
      const error =
        outcome.kind === "malformed" || outcome.kind === "resource_limit" ? outcome.detail : `rubric ${outcome.kind}`;
      return { ...base, passed: null, failureModes: [], error, ok: false };
    }
    // Held to the task class's contract as in a run: an undeclared code or key is a malformed answer.
    const score = resolveRubricScore(outcome.response.score, taskClass, { wallClockMs: 0, costUsd: 0 });
    const failureModes = score.failure_modes.map((f) => f.code);
    return {
      ...base,
      passed: score.passed,
      failureModes,
      error: null,
      ok: judged(item.expected, score.passed, failureModes),
    };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * Loads the task class and its digest-verified cases, then runs every case's controls through the
 * rubric. Throws NoCasesSelected when the filter leaves nothing; a misbehaving control is a result, not
 * an error.
 */
export async function checkBench(options: BenchCheckOptions): Promise<BenchCheckResult> {
  const warn = options.onWarning === undefined ? {} : { onWarning: options.onWarning };
  const taskClass = await loadTaskClass(options.taskClass, {
    benchRoot: options.benchRoot,
    registry: new TaskClassRegistry(),
    ...warn,
  });
  const filter = caseFilterOf(options.caseFilter);
  const { selected, taskClassCaseCount } = await selectCases(taskClass, {
    ...(filter === undefined ? {} : { filter }),
    ...warn,
  });
  if (selected.length === 0) throw new NoCasesSelected(taskClass.name, options.caseFilter ?? null, taskClassCaseCount);
  return checkCases(taskClass, selected, options);
}

async function checkCases(
  taskClass: TaskClass,
  cases: readonly BenchCase[],
  options: BenchCheckOptions,
): Promise<BenchCheckResult> {
  const kinds = readNearMissKinds(taskClass.benchPath).map((k) => k.name);
  const tempRoot = mkdtempSync(join(options.tempRoot ?? tmpdir(), "evalgate-bench-check-"));
  try {
    const plans = cases.map((benchCase) => planCase(benchCase, kinds));
    const planned = plans.flatMap((p) => p.planned);
    const rubricTemp = join(tempRoot, "rubric");
    mkdirSync(rubricTemp);
    const launcher = await prepareRubricLauncher(taskClass, {
      sandbox: options.sandbox ?? "bwrap",
      tempRoot: rubricTemp,
      compileCacheDir: join(tempRoot, "node-compile"),
      resourceLimits: sandboxLimits(taskClass.limits?.rubric),
    });
    const checks = new Map<Planned, ControlCheck>();
    await runPool(
      planned,
      options.concurrency ?? 2,
      async (item) => void checks.set(item, await runControl(item, launcher, tempRoot, taskClass)),
      () => false,
    );
    const ordered = planned.map((item) => checks.get(item)!);
    const problems = plans.flatMap((p) => p.problems);
    return {
      taskClass: taskClass.name,
      kinds,
      checks: ordered,
      notApplicable: plans.flatMap((p) => p.notApplicable),
      problems,
      ok: problems.length === 0 && ordered.every((c) => c.ok),
    };
  } finally {
    rmSync(tempRoot, { recursive: true, force: true });
  }
}
