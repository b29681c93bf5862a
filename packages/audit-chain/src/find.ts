import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ChainRecordSchema, formatIssues, safeParseWire } from "@eval/models";
import type { ChainRecord } from "@eval/models";
import { ChainTampered } from "./errors.ts";
import { listRuns } from "./listing.ts";

export interface FindRecordOptions {
  readonly runsDir: string;
  readonly taskClass: string;
  /** Skip incomplete (`partial:`) runs; default true. */
  readonly completeOnly?: boolean;
}

/**
 * The newest record of a task class's runs (complete ones only by default), schema-validated, with its
 * file name; null when there is none. It does not verify the chain: call `verifyChain` for that.
 */
export async function findLatestRecord(options: FindRecordOptions): Promise<{ record: ChainRecord; file: string } | null> {
  const { records } = await listRuns(options.runsDir);
  for (const file of [...records].reverse()) {
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(join(options.runsDir, file), "utf8"));
    } catch (error) {
      throw new ChainTampered({ file, reason: "the file is not valid JSON (truncated or corrupted)", expected: "valid JSON", found: (error as Error).message }, options.runsDir);
    }
    const parsed = safeParseWire(ChainRecordSchema, value);
    if (!parsed.success) {
      throw new ChainTampered({ file, reason: "the record does not match the chain-record schema", expected: "a valid evalgate.chain_record.v1", found: formatIssues(parsed.issues) }, options.runsDir);
    }
    const { report } = parsed.data;
    if (report.task_class === options.taskClass && (report.complete || options.completeOnly === false)) return { record: parsed.data, file };
  }
  return null;
}
