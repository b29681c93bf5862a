// `--sut-pids`, `--sut-memory`, `--sut-disk`: a sandboxed command SUT's limits for one run, each checked
// against the bounds a task class's `limits` has too (@eval/models/defaults).
import { EvalError } from "@eval/errors";
import { formatByteSize, parseByteSize, SANDBOX_LIMIT_BOUNDS } from "@eval/models/defaults";
import * as t from "typanion";
import { numberFlag, numberRule } from "./number-flag.ts";

function sizeFlag(name: string, raw: string, bounds: { readonly min: number; readonly max: number }): number {
  const bytes = parseByteSize(raw);
  if (bytes !== null && bytes >= bounds.min && bytes <= bounds.max) return bytes;
  throw new EvalError(
    "EVAL_USAGE",
    `${name} must be a size between ${formatByteSize(bounds.min)} and ${formatByteSize(bounds.max)} in whole KiB, MiB, GiB or TiB (e.g. 4GiB), got "${raw}"`,
  );
}

/** The limit flags given, parsed; one EVAL_USAGE line for a value that is not a number or out of bounds. */
export function sutLimitOverrides(raw: {
  readonly pids: string | undefined;
  readonly memory: string | undefined;
  readonly disk: string | undefined;
}): { pids?: number; memory?: number; disk?: number } {
  const { pids, memoryBytes, diskBytes } = SANDBOX_LIMIT_BOUNDS;
  const count = numberFlag(
    "--sut-pids",
    raw.pids,
    Number.NaN,
    numberRule(`a whole number of processes between ${pids.min} and ${pids.max}`, [
      t.isInteger(),
      t.isInInclusiveRange(pids.min, pids.max),
    ]),
  );
  return {
    ...(Number.isNaN(count) ? {} : { pids: count }),
    ...(raw.memory === undefined ? {} : { memory: sizeFlag("--sut-memory", raw.memory, memoryBytes) }),
    ...(raw.disk === undefined ? {} : { disk: sizeFlag("--sut-disk", raw.disk, diskBytes) }),
  };
}
