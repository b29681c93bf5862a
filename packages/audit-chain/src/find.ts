import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EvalError } from "@eval/errors";
import { ChainRecordSchema, formatIssues, safeParseWire, upgradeReport } from "@eval/models";
import type { ChainRecord, RecordedReport } from "@eval/models";
import { ChainTampered } from "./errors.ts";
import { listRuns } from "./listing.ts";

/** A record as read: stored as it is (what hashes and signatures cover) and its report in the current shape. */
export interface ReadRecord {
  readonly record: ChainRecord;
  /** `record.report` upgraded once to the current shape: what everything past the reader reads. */
  readonly report: RecordedReport;
}

export interface FoundRecord extends ReadRecord {
  /** The record's file name in the runs directory. */
  readonly file: string;
}

/**
 * A task class's records (every record for `null`), newest first, schema-validated, read one file at a time (stop early and
 * the older files are never read). It does not verify the chain: call `verifyChain` for that. A file
 * that is not a valid record throws ChainTampered naming it.
 */
export async function* recordsNewestFirst(runsDir: string, taskClass: string | null): AsyncGenerator<FoundRecord> {
  const { records } = await listRuns(runsDir);
  for (const file of [...records].reverse()) {
    const read = readRecordFile(runsDir, file);
    if (taskClass === null || read.report.task_class === taskClass) yield { ...read, file };
  }
}

/**
 * One record file of a runs directory, parsed and schema-validated (not checked against the chain: call
 * `verifyChain` for that), its report upgraded to the current shape. A file that is not a valid record
 * throws ChainTampered naming it. `schema: false` skips the schema check, which costs about ten times the read
 * and parse: only for a record `verifyChain` has just checked (its bytes, hashes and envelope), whose report
 * is then the one its writer hashed (`verify --strict` checks every report's schema).
 */
export function readRecordFile(runsDir: string, file: string, options: { readonly schema?: false } = {}): ReadRecord {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(join(runsDir, file), "utf8"));
  } catch (error) {
    throw new ChainTampered(
      {
        file,
        reason: "the file is not valid JSON (truncated or corrupted)",
        expected: "valid JSON",
        found: (error as Error).message,
      },
      runsDir,
    );
  }
  if (options.schema === false) {
    const record = value as ChainRecord;
    return { record, report: upgradeReport(record.report) };
  }
  const parsed = safeParseWire(ChainRecordSchema, value);
  if (!parsed.success) {
    throw new ChainTampered(
      {
        file,
        reason: "the record does not match the chain-record schema",
        expected: "a valid evalgate.chain_record.v1",
        found: formatIssues(parsed.issues),
      },
      runsDir,
    );
  }
  return { record: parsed.data, report: upgradeReport(parsed.data.report) };
}

/**
 * The newest record of `taskClass` (of any task class for null) whose report `where` accepts (any, without
 * it), or null when there is none: the one place "the last run that ..." is found in the chain. Reads newest
 * first and stops at the first match; like `recordsNewestFirst`, it does not verify the chain.
 */
export async function latestRun(
  runsDir: string,
  taskClass: string | null,
  where: (report: RecordedReport) => boolean = () => true,
): Promise<FoundRecord | null> {
  for await (const found of recordsNewestFirst(runsDir, taskClass)) if (where(found.report)) return found;
  return null;
}

/** A run id without the `partial:` prefix of an incomplete run: the name of its detail directory. */
export const bareRunId = (runId: string): string => runId.replace(/^partial:/, "");

/** Whether `report` is the run `runId` names, given with or without its `partial:` prefix. */
export const isRun = (report: Pick<RecordedReport, "run_id">, runId: string): boolean =>
  bareRunId(report.run_id) === bareRunId(runId);

/**
 * The record of run `runId` (with or without its `partial:` prefix; of `taskClass` when given), newest
 * first: the one place a run is found in the chain. Throws EVAL_REPORT_NOT_FOUND when it is not there.
 */
export async function findRun(runsDir: string, runId: string, taskClass: string | null = null): Promise<FoundRecord> {
  for await (const found of recordsNewestFirst(runsDir, taskClass)) if (isRun(found.report, runId)) return found;
  throw new EvalError(
    "EVAL_REPORT_NOT_FOUND",
    `no run ${runId}${taskClass === null ? "" : ` of ${taskClass}`} is recorded in ${runsDir}`,
    { hint: "`evalgate runs` lists the recorded run ids; pass --out <state dir> if it lives elsewhere" },
  );
}

/** The run ids the chain holds, without the `partial:` prefix of incomplete runs (their detail directories' names). */
export async function chainedRunIds(runsDir: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const { report } of recordsNewestFirst(runsDir, null)) ids.add(bareRunId(report.run_id));
  return ids;
}
