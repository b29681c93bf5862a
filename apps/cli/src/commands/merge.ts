import { Command, Option } from "clipanion";
import { MERGE_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { warningPrinter } from "../warnings.ts";
import { ExitCode } from "../exit-codes.ts";
import { benchRootOption, formatOption, signingKeyOption, stateDirOption, trustTiersOption } from "../options.ts";
import { DEFAULT_STATE_DIR } from "@eval/state-layout";

export class MergeCommand extends EvalgateCommand {
  static override paths = [["merge"]];
  static override usage = Command.Usage({
    category: "Run",
    description: "Merge shard bundles of one plan into one run and append it to the audit chain",
    details: `
      Checks every bundle (its manifest's digests), that all belong to one plan, and that every unit is there
      exactly once (identical duplicates are fine), then computes the run's statistics as a one-machine run
      of the plan would and appends exactly one record. Merging the same bundles again appends nothing. The
      flags --junit and --summary-md (and $GITHUB_STEP_SUMMARY) write the merged run's CI files, missing
      units' cases as skipped testcases. Exit codes: 0 ok, 9 bundles rejected (edited, different plans, conflicting
      units), 10 units missing (--allow-incomplete records an incomplete run instead, which never supports a
      verdict), 11 the chain's head is not --expect-head, 5 the chain does not verify. With a signing key
      (--signing-key or EVALGATE_SIGNING_KEY) the record is signed, and every bundle must be signed by that key or
      a signer declared in the trust-tiers file (exit 9 otherwise).
    `,
    examples: [["Merge the two shards of `evalgate run --help`", "evalgate merge shard-1-of-2 shard-2-of-2"]],
  });

  bundles = Option.Rest({ required: 1 });
  allowIncomplete = Option.Boolean("--allow-incomplete", false, {
    description: "Record missing units as an incomplete run instead of refusing",
  });
  expectHead = Option.String("--expect-head", { description: "Refuse unless the chain's head is this chain hash" });
  out = stateDirOption();
  benchRoot = benchRootOption();
  trustTiers = trustTiersOption();
  junit = Option.String("--junit", {
    description: "Also write a JUnit XML file of the merged run (missing units as skipped testcases)",
  });
  summaryMd = Option.String("--summary-md", {
    description: "Also write a Markdown summary (appended to $GITHUB_STEP_SUMMARY when that is set)",
  });
  format = formatOption();
  signingKey = signingKeyOption();

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out, bench_root: this.benchRoot, trust_tiers: this.trustTiers, format: this.format },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const onWarning = warningPrinter(this.context, format);
    const [{ mergeBundles }, { resolve }] = await Promise.all([import("@eval/runner"), import("node:path")]);
    const stateDir = settings.path("state_dir", DEFAULT_STATE_DIR);
    const signingKey = await (
      await import("../signing-key.ts")
    ).commandSigningKey(this.signingKey, this.context, stateDir);
    const trustedSigners =
      signingKey === null ? [] : await declaredSigners(settings.path("trust_tiers", "docs/trust-tiers.yaml"));
    const newStateDir = settings.watchNewStateDir(stateDir);
    const result = await mergeBundles(
      this.bundles.map((bundle) => resolve(this.context.cwd, bundle)),
      {
        stateDir,
        allowIncomplete: this.allowIncomplete,
        onWarning,
        signingKey,
        trustedSigners,
        ...(this.expectHead === undefined ? {} : { expectHead: this.expectHead }),
      },
    ).finally(() => {
      const started = newStateDir();
      if (started !== null) onWarning(started);
    });
    const { report } = result;
    const { writeRunOutputs } = await import("../run-outputs.ts");
    const missingCases = [...new Set(result.missing.map((unit) => unit.case_id))];
    await writeRunOutputs({
      recorded: { report, chain: result.chain, taskClass: { benchRoot: settings.path("bench_root", "bench") } },
      unscored: missingCases,
      stateDir,
      tiersPath: settings.path("trust_tiers", "docs/trust-tiers.yaml"),
      cwd: this.context.cwd,
      env: this.context.env,
      onWarning,
      ...(this.junit === undefined ? {} : { junit: this.junit }),
      ...(this.summaryMd === undefined ? {} : { summaryMd: this.summaryMd }),
    });
    const summary = {
      type: "merge",
      schema_version: MERGE_LINE_SCHEMA_VERSION,
      plan_id: result.plan.plan_id,
      run_id: report.run_id,
      appended: result.appended,
      bundles: this.bundles.length,
      duplicates: result.duplicates,
      missing: result.missing.map((unit) => `${unit.case_id}#t${unit.trial}`),
      complete: report.complete,
      case_count: report.case_count,
      scored: report.per_case.length,
      mean_score: report.mean_score,
      score_stddev: report.score_stddev,
      lower_bound_95: report.lower_bound_95,
      lower_bound_method: report.lower_bound_method,
      passed_count: report.passed_count,
      chain_head: report.chain_head,
      record_path: result.recordPath,
    };
    if (format === "human") {
      this.context.stdout.write(
        `${result.appended ? "merged" : "already recorded"} run ${report.run_id}: ${report.per_case.length}/${report.case_count} cases${report.complete ? "" : " (INCOMPLETE)"}, ` +
          `${report.passed_count} passed, mean ${report.mean_score.toFixed(3)}, lower bound ${report.lower_bound_95.toFixed(3)} (${report.lower_bound_method})\nrecord ${result.recordPath}\n`,
      );
    } else this.emit(summary);
    return ExitCode.ok;
  }
}

/** The key ids of the trust-tiers file's signers (none when the file does not exist). */
async function declaredSigners(tiersPath: string): Promise<string[]> {
  const [{ loadTierConfig }, { keyIdOf }] = await Promise.all([import("@eval/promotion"), import("@eval/audit-chain")]);
  const config = await loadTierConfig(tiersPath, { optional: true });
  return (config?.signers ?? []).map((signer) => keyIdOf(signer.public_key));
}
