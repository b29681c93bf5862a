// The CI outputs of `evalgate run` and `evalgate merge`: a JUnit file and a Markdown job summary, from the run just recorded.
import { resolve } from "node:path";
import type { WarningSink } from "@eval/errors";
import { recordedRunViews } from "@eval/report-data";
import type { RecordedRunViewsInput } from "@eval/report-data";
import { renderJunit, renderMarkdownSummary } from "@eval/reports";
import { appendOutputFile, writeOutputFile } from "./output-file.ts";

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
}

/** Where the Markdown summary goes: `--summary-md` (written), and GITHUB_STEP_SUMMARY (appended) when set. */
function summaryTargets(options: RunOutputOptions): Array<{ path: string; append: boolean }> {
  const targets: Array<{ path: string; append: boolean }> = [];
  if (options.summaryMd !== undefined) targets.push({ path: resolve(options.cwd, options.summaryMd), append: false });
  const step = options.env.GITHUB_STEP_SUMMARY;
  if (step !== undefined && step !== "") targets.push({ path: resolve(options.cwd, step), append: true });
  return targets;
}

/** Writes the requested CI outputs; returns the paths written (none when none was asked for). */
export async function writeRunOutputs(options: RunOutputOptions): Promise<string[]> {
  const summaries = summaryTargets(options);
  if (options.junit === undefined && summaries.length === 0) return [];
  // Verdicts are read only for the summary: JUnit alone need not judge, nor warn about a missing tier file.
  const data = await recordedRunViews({ ...options.recorded, stateDir: options.stateDir, tiersPath: options.tiersPath, withVerdicts: summaries.length > 0, onWarning: options.onWarning });
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
  return written;
}
