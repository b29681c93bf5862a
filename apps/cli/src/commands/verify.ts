import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { VERIFY_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { ExitCode } from "../exit-codes.ts";
import { renderError } from "../render-error.ts";
import { warningPrinter } from "../warnings.ts";
import { formatOption, stateDirOption } from "../options.ts";
import type { HistoryIndexCheck } from "@eval/report-data";
import { checkStateDir, DEFAULT_STATE_DIR, stateLayout } from "@eval/state-layout";

export class VerifyCommand extends EvalgateCommand {
  static override paths = [["verify"]];
  static override usage = Command.Usage({
    category: "Audit",
    description: "Verify the audit chain of recorded runs and name the first bad file",
    details: `
      Walks <state>/runs/ (one record file per run; per-run detail directories are skipped) and checks every
      record's bytes, name and hashes and every link. Prints one JSON line (ok, records, complete, incomplete,
      head, first_bad); --format human prints a sentence. Exit 0 when the chain verifies, 5 when it does not.

      With --expect-head, the chain must still contain the given chain hash (e.g. the head committed to
      git): without it, deleting the newest records cannot be told from never having made them.
      With --anchor <file> (written by \`evalgate anchor --write\`, kept outside the state directory) the chain
      must extend that anchor: contain its head and at least its number of records.
      Under --strict every report is also validated against its schema, mode 0600 is required, no
      foreign file is allowed (not even a dotfile) and a run id recorded twice is a failure; without it,
      such run ids are listed (\`duplicate_run_ids\`).
      Once the chain verifies, the history index (<state>/runs/.index/history.json, derived data the views
      read) is compared with it entry by entry (\`history_index\`): an entry that disagrees with its record is
      named by run id, as a warning with the rebuild hint, and is a failure (exit 5) under --strict.
    `,
    examples: [
      ["Verify the whole chain", "evalgate verify"],
      [
        "Verify the last 30 days against the head committed to git",
        "evalgate verify --strict --since 2026-10-23 --expect-head sha256:...",
      ],
    ],
  });

  since = Option.String("--since", { description: "Verify records recorded at or after this ISO 8601 time" });
  strict = Option.Boolean("--strict", false, { description: "Also check schemas, permissions and foreign files" });
  expectHead = Option.String("--expect-head", {
    description: "A chain hash the chain must contain (detects deleted newest records)",
  });
  anchor = Option.String("--anchor", { description: "An anchor file (evalgate anchor --write) the chain must extend" });
  out = stateDirOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out, format: this.format },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const { resolve } = await import("node:path");
    const stateDir = checkStateDir(settings.path("state_dir", DEFAULT_STATE_DIR), { write: false });
    const runsDir = stateLayout(stateDir).runs;
    const { ChainTampered, readAnchor, verifyAgainstAnchor, verifyChain } = await import("@eval/audit-chain");
    if (this.anchor !== undefined && (this.since !== undefined || this.expectHead !== undefined))
      throw new EvalError("EVAL_USAGE", "--anchor verifies the whole chain: pass it without --since and --expect-head");
    const chain =
      this.anchor !== undefined
        ? await verifyAgainstAnchor(runsDir, await readAnchor(resolve(this.context.cwd, this.anchor)), {
            strict: this.strict,
          })
        : await verifyChain({
            runsDir,
            strict: this.strict,
            ...(this.since === undefined ? {} : { since: this.since }),
            ...(this.expectHead === undefined ? {} : { expectHead: this.expectHead }),
          });
    // The history index is compared once the chain verifies (a failure under --strict, else a warning).
    const { checkHistoryIndex } = await import("@eval/report-data");
    const index = chain.ok
      ? await checkHistoryIndex({
          stateDir,
          from: chain.skipped,
          strict: this.strict,
          onWarning: warningPrinter(this.context, format),
        })
      : null;
    const indexFault = index?.fault ?? null;
    const result = indexFault === null ? chain : { ...chain, ok: false, firstBad: indexFault.fault };
    if (format === "human") {
      const window = result.skipped > 0 ? ` (${result.skipped} earlier records not rechecked)` : "";
      const duplicates = result.duplicateRunIds ?? [];
      if (chain.ok && duplicates.length > 0)
        this.context.stdout.write(`runs recorded more than once: ${duplicates.join(", ")}\n`);
      this.context.stdout.write(
        chain.ok
          ? `audit chain OK: ${chain.records} records (${chain.complete} complete, ${chain.incomplete} incomplete)${window}, head ${chain.head}\n`
          : `audit chain FAILED at ${chain.firstBad!.file}: ${chain.firstBad!.reason}\n  expected: ${chain.firstBad!.expected}\n  found:    ${chain.firstBad!.found}\n`,
      );
      if (index !== null) this.context.stdout.write(`${historyIndexSentence(index.check, indexFault !== null)}\n`);
    } else {
      this.emit({
        type: "verify",
        schema_version: VERIFY_LINE_SCHEMA_VERSION,
        runs_dir: runsDir,
        ok: result.ok,
        records: result.records,
        complete: result.complete,
        incomplete: result.incomplete,
        skipped: result.skipped,
        head: result.head,
        host_fingerprint: result.hostFingerprint,
        strict: this.strict,
        first_bad: result.firstBad,
        duplicate_run_ids: result.duplicateRunIds ?? [],
        history_index: index?.check ?? null,
      });
    }
    if (result.ok) return ExitCode.ok;
    const rendered = renderError(indexFault ?? new ChainTampered(result.firstBad!, runsDir), false);
    this.context.stderr.write(rendered.text);
    return rendered.exitCode;
  }
}

/** The history index's line under `--format human`. */
function historyIndexSentence(check: HistoryIndexCheck, failed: boolean): string {
  const counts = `${check.entries} entries, ${check.behind} newer records not yet indexed`;
  if (check.state === "absent") return `history index: none yet (the next view builds it)`;
  if (check.state === "agrees") return `history index OK: ${counts}, ${check.compared} summaries compared`;
  const count = check.disagreements;
  const what =
    check.state === "unusable"
      ? check.problem!
      : `${count} entr${count === 1 ? "y disagrees" : "ies disagree"} with the chain`;
  return `history index ${failed ? "FAILED" : "STALE"} (${check.path}): ${what}`;
}
