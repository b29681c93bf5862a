// The outputs of `evalgate run` and `evalgate merge` built from the run just recorded: a JUnit file and a
// Markdown job summary for CI, and the at-a-glance lines a human-format run ends with. The views and renderers
// are imported only when one of them is asked for: a JSON-lines run without CI outputs loads none of them.
import { resolve } from "node:path";
import type { WarningSink } from "@eval/errors";
import type { RecordedRunViewsInput } from "@eval/report-data";

export interface RunOutputOptions {
  /** The run just recorded: its report, the chain as verified after the append, its task class (or where to load it). */
  readonly recorded: Pick<RecordedRunViewsInput, "report" | "chain" | "taskClass">;
  readonly stateDir: string;
  readonly tiersPath: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** `--junit <file>`. */
  readonly junit?: string;
  /** `--summary-md <file>`; GITHUB_STEP_SUMMARY (appended to) when set. */
  readonly summaryMd?: string;
  /** Selected cases the run did not score (skipped testcases in JUnit). */
  readonly unscored: readonly string[];
  readonly onWarning: WarningSink;
  /** The run's record file: given, the at-a-glance summary is rendered (with the tiers' verdicts). */
  readonly glanceRecordPath?: string;
}

/** What `writeRunOutputs` wrote, and the at-a-glance summary when one was asked for. */
export interface RunOutputs {
  readonly written: readonly string[];
  readonly glance: string | null;
}

/** Where the Markdown summary goes: `--summary-md` (written), and GITHUB_STEP_SUMMARY (appended) when set. */
function summaryTargets(options: RunOutputOptions): Array<{ path: string; append: boolean }> {
  const targets: Array<{ path: string; append: boolean }> = [];
  if (options.summaryMd !== undefined) targets.push({ path: resolve(options.cwd, options.summaryMd), append: false });
  const step = options.env.GITHUB_STEP_SUMMARY;
  if (step !== undefined && step !== "") targets.push({ path: resolve(options.cwd, step), append: true });
  return targets;
}

/**
 * Writes the requested CI outputs and renders the glance when asked. A tier file or current tier that is
 * missing is the glance's "no verdict" line, not a warning (a JUnit or summary alone still warns).
 */
export async function writeRunOutputs(options: RunOutputOptions): Promise<RunOutputs> {
  const summaries = summaryTargets(options);
  const glance = options.glanceRecordPath;
  if (options.junit === undefined && summaries.length === 0 && glance === undefined)
    return { written: [], glance: null };
  const [
    { recordedRunViews },
    { renderJunit, renderMarkdownSummary, renderRunGlance },
    { appendOutputFile, writeOutputFile },
  ] = await Promise.all([import("@eval/report-data"), import("@eval/reports"), import("./output-file.ts")]);
  const noVerdict: string[] = [];
  const onWarning: WarningSink =
    glance === undefined
      ? options.onWarning
      : (warning) =>
          warning.code.startsWith("report.no_") ? noVerdict.push(warning.message) : options.onWarning(warning);
  // Verdicts are read only for a summary: JUnit alone need not judge, nor warn about a missing tier file.
  const data = await recordedRunViews({
    ...options.recorded,
    stateDir: options.stateDir,
    tiersPath: options.tiersPath,
    withVerdicts: summaries.length > 0 || glance !== undefined,
    onWarning,
  });
  const written: string[] = [];
  if (options.junit !== undefined) {
    const path = resolve(options.cwd, options.junit);
    await writeOutputFile(path, renderJunit({ run: data.run, cases: data.cases, unscored: options.unscored }));
    written.push(path);
  }
  const markdown = renderMarkdownSummary({ run: data.run, cases: data.cases, verdicts: data.verdicts });
  for (const target of summaries) {
    await (target.append ? appendOutputFile(target.path, `${markdown}\n`) : writeOutputFile(target.path, markdown));
    written.push(target.path);
  }
  const reason =
    noVerdict.length === 0
      ? null
      : noVerdict.map((message) => message.replace(/: the report shows no verdicts$/, "")).join("; ");
  return {
    written,
    glance:
      glance === undefined
        ? null
        : renderRunGlance({ ...data, noVerdict: reason, unscored: options.unscored.length, recordPath: glance }),
  };
}
