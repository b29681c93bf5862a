// `evalgate --help` cold start against bare `node -e 0`, same machine, same run (goal: within 3x).
import { join } from "node:path";
import type { BenchRow } from "../bench.ts";
import { alternate, timeProcess } from "./timing.ts";

export default async function cliStart(): Promise<BenchRow[]> {
  const bin = join(import.meta.dirname, "..", "..", "apps", "cli", "dist", "bin.js");
  timeProcess(process.execPath, [bin, "--help"]); // fill the compile cache, as any second run would
  const { a: bare, b: help } = alternate(
    25,
    () => timeProcess(process.execPath, ["-e", "0"]),
    () => timeProcess(process.execPath, [bin, "--help"]),
  );
  const ratio = help / bare;
  return [
    { benchmark: "cli-start", measure: "node -e 0 (median of 25)", value: `${bare.toFixed(1)} ms` },
    { benchmark: "cli-start", measure: "evalgate --help (median of 25)", value: `${help.toFixed(1)} ms` },
    { benchmark: "cli-start", measure: "ratio", value: `${ratio.toFixed(2)}x`, goal: "<= 3x", ok: ratio <= 3 },
  ];
}
