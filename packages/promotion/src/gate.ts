import {
  PROMOTION_VERDICT_SCHEMA_VERSION,
  PromotionVerdictSchema,
  parseWire,
  SANDBOXED_ISOLATION_CLASSES,
} from "@eval/models";
import type { PromotionVerdict, RecordedReport } from "@eval/models";
import { EvalError } from "@eval/errors";
import { clopperPearsonLowerBound } from "@eval/statistics";
import type { TierConfig } from "./tier-config.ts";

export interface EvaluateInput {
  readonly taskClass: string;
  /** The run the verdict is about, upgraded (a report with no bound a gate may read is judged, and never suffices). */
  readonly report: RecordedReport;
  /** From the task class's registration: passed cases required per target tier. */
  readonly minCasesForPromotion: Readonly<Record<string, number>>;
  /** Whether the audit chain holding the report verified. */
  readonly chainVerified: boolean;
  /** The attempts the report pools (pooled-evidence.ts): recorded on the verdict. */
  readonly evidencePool?: PromotionVerdict["evidence_pool"];
  /** Why the report's stored figures cannot be trusted (recorded-figures.ts), when they disagreed with its per-case data. */
  readonly tampered?: string;
  /** Default: the tier just above the task class's current tier. */
  readonly targetTier?: string;
  /** Further reports weighed with `report`: all must share its isolation_class. */
  readonly evidence?: readonly RecordedReport[];
  /** Newer runs that were not chosen as evidence, and why (shown on the verdict). */
  readonly passedOver?: readonly { readonly run_id: string; readonly reason: string }[];
  /** When the verdict is made (recorded in it); default now. */
  readonly now?: Date;
  /** From the task class's registration: trials per case its runs need (min_trials); default 1. */
  readonly minTrials?: number;
  /** Who signed the evidence (signed-evidence.ts): recorded on the verdict; a tier with require_signed needs `signed`. */
  readonly signatures?: PromotionVerdict["signatures"];
}

/** Thrown by `PromotionGate.apply`, always: only a human promotes. */
export class PromotionMustBeHumanAuthorized extends EvalError {
  constructor(tiersFile: string) {
    super(
      "EVAL_PROMOTION_MUST_BE_HUMAN_AUTHORIZED",
      `evalgate never changes a trust tier: promote by a reviewed change to ${tiersFile} (edit the task class under \`current:\`), approved by its code owners, citing the verdict in .evalgate/recommendations/`,
      { hint: `open a pull request against ${tiersFile}` },
    );
  }
}

const format = (value: number): string => String(Number(value.toFixed(4)));

/** Cases whose every trial passed, of the cases scored: pass^k's per-case value with k = the trials made (0 or 1). */
function casesPassingEveryTrial(report: RecordedReport): { readonly passing: number; readonly n: number } {
  const passing = report.per_case.filter((entry) =>
    (entry.trials ?? [entry.score]).every((trial) => trial.passed),
  ).length;
  return { passing, n: report.per_case.length };
}

/**
 * The trials and pass^k conditions: the run must have made at least the tier's and the task class's minimum
 * trials per case, and a one-sided 95% lower bound on its pass^k must reach the tier's min_pass_hat_k. With k
 * the trials made, a case's pass^k is 1 when every trial passed, else 0, so the bound is Clopper-Pearson on the
 * count of such cases (read from per_case, not from the recorded figure). Judging the point estimate passed
 * 17-38% of runs whose true pass^k was 0.1 below the threshold (exact binomial, 10-15 cases, thresholds 0.6-0.9). A
 * report that recorded no trials (before v3) made one trial per case and records no pass^k to judge.
 */
function reliabilityReasons(
  report: RecordedReport,
  targetTier: string,
  tier: TierConfig["tiers"][number],
  taskClassMinTrials: number,
): string[] {
  const reasons: string[] = [];
  const trials = report.trials_per_case;
  if (trials < tier.min_trials)
    reasons.push(
      `trials per case ${trials} < ${tier.min_trials} required for ${targetTier} (run with --trials ${tier.min_trials})`,
    );
  if (trials < taskClassMinTrials)
    reasons.push(`trials per case ${trials} < ${taskClassMinTrials} the task class requires (min_trials)`);
  if (tier.min_pass_hat_k !== undefined) {
    if (report.unrecorded?.trials)
      reasons.push(
        `${targetTier} requires pass^k >= ${format(tier.min_pass_hat_k)}, which run ${report.run_id} (${report.unrecorded.recorded_as}) does not record`,
      );
    else {
      const { passing, n } = casesPassingEveryTrial(report);
      const bound = n === 0 ? 0 : clopperPearsonLowerBound(passing, n);
      if (!(bound >= tier.min_pass_hat_k)) {
        reasons.push(
          `pass^${trials} lower bound ${format(bound)} < ${format(tier.min_pass_hat_k)} required for ${targetTier} (Clopper-Pearson: ${passing} of ${n} cases passed every trial; point estimate ${format(passing / Math.max(n, 1))})`,
        );
      }
    }
  }
  return reasons;
}

/** A tier with require_signed: every record of the judged SUT and the chain's head signed by a declared signer. */
function signatureReasons(
  signatures: EvaluateInput["signatures"],
  targetTier: string,
  tier: TierConfig["tiers"][number],
): string[] {
  if (!tier.require_signed || signatures?.status === "signed") return [];
  if (signatures === undefined) return [`${targetTier} requires signed evidence, and no signature was checked`];
  const runs = signatures.runs_not_signed.map(
    (run) => `${run.run_id} (${run.key_id === null ? "unsigned" : `undeclared key ${run.key_id}`})`,
  );
  const parts = [
    ...(runs.length === 0
      ? []
      : [
          `runs not signed by a declared signer: ${runs.slice(0, 5).join(", ")}${runs.length > 5 ? `, and ${runs.length - 5} more` : ""}`,
        ]),
    ...(signatures.head_signed ? [] : ["the chain's head is not signed by a declared signer"]),
    ...(signatures.anchor_signed === false ? ["the anchor is not signed by a declared signer"] : []),
  ];
  return [`${targetTier} requires evidence signed by a signer declared in trust-tiers.yaml: ${parts.join("; ")}`];
}

/**
 * Read-only promotion verdicts. `evaluate` is a pure function of its arguments: evidence is sufficient
 * exactly when every condition holds, and `reasons` lists each failing condition with its numbers.
 * Nothing in evalgate acts on a verdict; `apply` exists only to refuse.
 */
export class PromotionGate {
  readonly config: TierConfig;

  constructor(config: TierConfig) {
    this.config = config;
  }

  /**
   * The task class's current tier. Throws EVAL_TIER_CONFIG_INVALID when the file has no line for it
   * under `current:` (a new task class needs one, added by a reviewed change), so callers can check
   * this before spending a run on a verdict that cannot be issued.
   */
  currentTier(taskClass: string): string {
    const currentTier = this.config.current[taskClass];
    if (currentTier === undefined) {
      throw new EvalError(
        "EVAL_TIER_CONFIG_INVALID",
        `${this.config.source} has no current tier for task class "${taskClass}"`,
        {
          hint: `add "${taskClass}: ${this.config.tiers[0]?.name ?? "untrusted"}" under current: in ${this.config.source} (a reviewed change; docs/bench-authoring.md)`,
        },
      );
    }
    return currentTier;
  }

  evaluate(input: EvaluateInput): PromotionVerdict {
    const { taskClass, report, config } = { ...input, config: this.config };
    const names = config.tiers.map((tier) => tier.name);
    const currentTier = this.currentTier(taskClass);
    const currentIndex = names.indexOf(currentTier);
    const targetTier = input.targetTier ?? names[currentIndex + 1];
    if (targetTier === undefined) {
      throw new EvalError(
        "EVAL_USAGE",
        `task class "${taskClass}" is already at the highest tier (${currentTier}): there is nothing to promote to`,
      );
    }
    const targetIndex = names.indexOf(targetTier);
    if (targetIndex === -1)
      throw new EvalError("EVAL_USAGE", `unknown target tier "${targetTier}"`, {
        hint: `tiers in ${config.source}: ${names.join(", ")}`,
      });
    if (targetIndex <= currentIndex) {
      throw new EvalError(
        "EVAL_USAGE",
        `target tier "${targetTier}" is not above "${taskClass}"'s current tier "${currentTier}"`,
        {
          hint: `choose one of: ${names.slice(currentIndex + 1).join(", ") || "(none: already at the top)"}`,
        },
      );
    }
    const evidence = [report, ...(input.evidence ?? [])];
    for (const other of evidence) {
      if (other.task_class !== taskClass) {
        throw new EvalError(
          "EVAL_REPORT_INVALID",
          `report ${other.run_id} is for task class "${other.task_class}", not "${taskClass}"`,
        );
      }
    }
    const tier = config.tiers[targetIndex]!;
    const minCases = input.minCasesForPromotion[targetTier];
    const heldOut = new Set(
      report.per_case.filter((entry) => entry.curation_class === "held-out").map((entry) => entry.case_id),
    ).size;
    const blockCodes = [
      ...new Set([
        ...report.block_severity_failure_modes,
        ...report.per_case.flatMap((entry) =>
          entry.score.failure_modes.filter((mode) => mode.severity === "block").map((mode) => mode.code),
        ),
      ]),
    ].sort();
    const isolation = new Map<string, number>();
    for (const other of evidence) isolation.set(other.isolation_class, (isolation.get(other.isolation_class) ?? 0) + 1);

    // A report that recorded no selection (v1) recorded no bound valid at small n either.
    const scope = report.selection?.scope ?? "unknown";
    const reasons: string[] = [];
    if (report.bound_quantity === null) {
      reasons.push(
        `run ${report.run_id} was recorded as ${report.unrecorded.recorded_as}, whose bound (${report.lower_bound_method}) is not valid at small n and which does not record its case selection: it cannot support a promotion; run the whole bench again`,
      );
    } else if (report.selection.scope === "subset") {
      const { selected_case_count: selected, task_class_case_count: total, filter } = report.selection;
      reasons.push(
        `run ${report.run_id} scored a subset: ${selected} of ${total} cases (filter ${JSON.stringify(filter)}), ${total - selected} left out; a promotion needs a run over the whole task class`,
      );
    }
    if (!(report.lower_bound_95 >= tier.threshold)) {
      reasons.push(
        `lower_bound_95 ${format(report.lower_bound_95)} < ${format(tier.threshold)} required for ${targetTier} (${report.lower_bound_method})`,
      );
    }
    if (report.case_count < tier.min_cases)
      reasons.push(`cases ${report.case_count} < ${tier.min_cases} required for ${targetTier}`);
    if (minCases === undefined) {
      reasons.push(
        `task class "${taskClass}" declares no min_cases_for_promotion for ${targetTier}: it cannot reach that tier`,
      );
    } else if (report.passed_count < minCases) {
      reasons.push(`passed_count ${report.passed_count} < ${minCases} min_cases_for_promotion for ${targetTier}`);
    }
    if (heldOut < tier.min_held_out)
      reasons.push(`held-out cases ${heldOut} < ${tier.min_held_out} required for ${targetTier}`);
    if (tier.require_sandbox) {
      const rubricSandboxed = (SANDBOXED_ISOLATION_CLASSES as readonly string[]).includes(report.isolation_class);
      const sutIsolation = report.sut_isolation ?? "unknown";
      // A SUT counts as contained in the sandbox (no network, or only the model bridge), or as evalgate's own replay;
      // not with the host's network (it reaches the host's loopback services), not as a host process or in-process code.
      if (!rubricSandboxed || !["bwrap", "bwrap-bridge", "harness"].includes(sutIsolation)) {
        reasons.push(
          `${targetTier} requires the sandbox: the run's rubric isolation is ${report.isolation_class} and its SUT ran as ${sutIsolation}`,
        );
      }
    }
    reasons.push(...reliabilityReasons(report, targetTier, tier, input.minTrials ?? 1));
    if (blockCodes.length > 0)
      reasons.push(`block-severity failure modes present (${blockCodes.length}): ${blockCodes.join(", ")}`);
    reasons.push(...signatureReasons(input.signatures, targetTier, tier));
    if (!input.chainVerified) reasons.push("the audit chain does not verify (run `evalgate verify`)");
    if (input.tampered !== undefined) reasons.push(`tampered record: ${input.tampered}`);
    if (!report.complete)
      reasons.push(
        `the report is incomplete (${report.per_case.length} of ${report.case_count} cases; run ${report.run_id})`,
      );
    if (isolation.size > 1) {
      const mix = [...isolation].map(([name, count]) => `${name} x${count}`).join(", ");
      reasons.push(`evidence mixes isolation classes (${mix}): scores are not comparable across them`);
    }

    return parseWire(PromotionVerdictSchema, {
      schema_version: PROMOTION_VERDICT_SCHEMA_VERSION,
      task_class: taskClass,
      current_tier: currentTier,
      target_tier: targetTier,
      evidence_sufficient: reasons.length === 0,
      reasons: reasons.length === 0 ? ["all conditions met"] : reasons,
      sut_label: report.sut_label,
      sut_digest: report.sut_digest,
      lower_bound_95: report.lower_bound_95,
      lower_bound_method: report.lower_bound_method,
      bound_quantity: report.bound_quantity,
      threshold_at_target: tier.threshold,
      report_scope: scope,
      case_count: report.case_count,
      min_cases_at_target: tier.min_cases,
      passed_count: report.passed_count,
      min_passed_at_target: minCases ?? 0,
      held_out_count: heldOut,
      min_held_out_at_target: tier.min_held_out,
      isolation_class: report.isolation_class,
      report_run_id: report.run_id,
      report_chain_head: report.chain_head,
      passed_over: input.passedOver ?? [],
      thresholds_calibrated: config.calibrated,
      evaluated_at: (input.now ?? new Date()).toISOString(),
      ...(input.evidencePool === undefined ? {} : { evidence_pool: input.evidencePool }),
      ...(input.signatures === undefined ? {} : { signatures: input.signatures }),
      requires_human_approval: true,
    });
  }

  /** Always throws PromotionMustBeHumanAuthorized: evalgate has no code path that changes a tier. */
  apply(..._args: unknown[]): never {
    throw new PromotionMustBeHumanAuthorized(this.config.source);
  }
}
