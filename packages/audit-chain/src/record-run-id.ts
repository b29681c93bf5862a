// The run a record file of the chain names: a caller judges that run from the chain, never from the file.
import { readFile } from "node:fs/promises";
import { EvalError } from "@eval/errors";

/**
 * The run_id a chain record (or a bare report) file names. EVAL_REPORT_NOT_FOUND when the file is
 * missing, EVAL_REPORT_INVALID when it is not JSON or names no run_id.
 */
export async function runIdOfRecordFile(path: string): Promise<string> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new EvalError("EVAL_REPORT_NOT_FOUND", `no report at ${path}`);
    throw new EvalError("EVAL_REPORT_INVALID", `${path} is not a JSON report: ${(error as Error).message}`);
  }
  const record = value as { run_id?: unknown; report?: { run_id?: unknown } } | null;
  const runId = record?.report?.run_id ?? record?.run_id;
  if (typeof runId !== "string" || runId === "") throw new EvalError("EVAL_REPORT_INVALID", `${path} names no run_id`);
  return runId;
}
