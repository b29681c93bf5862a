// `evalgate --help` and `evalgate --version` cold start against bare `node -e 0`, same machine, same run
// (goal: each within 2x). Both are answered from the command table without loading the parser or any
// command (apps/cli/src/help.ts); `evalgate verify --help` is shown beside them as a command's own help.
import { join } from "node:path";
import type { BenchRow } from "../bench.ts";
import { alternate, timeProcess } from "./timing.ts";

const ROUNDS = 25;

export default async function cliStart(): Promise<BenchRow[]> {
  const bin = join(import.meta.dirname, "..", "..", "apps", "cli", "dist", "bin.js");
  const rows: BenchRow[] = [];
  for (const argv of [["--help"], ["--version"], ["verify", "--help"]]) {
    timeProcess(process.execPath, [bin, ...argv]); // fill the compile cache, as any second run would
    const { a: bare, b: command } = alternate(
      ROUNDS,
      () => timeProcess(process.execPath, ["-e", "0"]),
      () => timeProcess(process.execPath, [bin, ...argv]),
    );
    const ratio = command / bare;
    const label = `evalgate ${argv.join(" ")}`;
    const goal = argv.length === 1 ? { goal: "<= 2x", ok: ratio <= 2 } : {};
    rows.push({
      benchmark: "cli-start",
      measure: `${label}: node -e 0 / ${label} (medians of ${ROUNDS})`,
      value: `${bare.toFixed(1)} ms / ${command.toFixed(1)} ms`,
    });
    rows.push({ benchmark: "cli-start", measure: `${label}: ratio`, value: `${ratio.toFixed(2)}x`, ...goal });
  }
  return rows;
}
