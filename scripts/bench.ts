// Runs the repo's benchmarks: `pnpm bench` (all) or `pnpm bench <name> [<name>...]`.
// Each scripts/benchmarks/<name>.bench.ts default-exports an async function returning result rows.
// Every benchmark measures against a baseline in the same run (a ratio), because these machines are
// shared and noisy; docs/performance.md records the figures and the machine.
import { readdirSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export interface BenchRow {
  readonly benchmark: string;
  readonly measure: string;
  readonly value: string;
  readonly goal?: string;
  readonly ok?: boolean;
}

const dir = join(import.meta.dirname, "benchmarks");
const available = readdirSync(dir)
  .filter((file) => file.endsWith(".bench.ts"))
  .map((file) => file.replace(/\.bench\.ts$/, ""))
  .sort();
const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`bench: no benchmark named ${unknown.join(", ")}; available: ${available.join(", ")}`);
  process.exit(1);
}
const cpu = cpus()[0]?.model ?? "unknown cpu";
console.log(
  `machine: ${cpus().length} x ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`,
);
console.log("| benchmark | measure | value | goal | ok |\n|---|---|---|---|---|");
let failed = false;
for (const name of requested.length > 0 ? requested : available) {
  const module = (await import(pathToFileURL(join(dir, `${name}.bench.ts`)).href)) as {
    default: () => Promise<BenchRow[]>;
  };
  for (const row of await module.default()) {
    if (row.ok === false) failed = true;
    console.log(
      `| ${row.benchmark} | ${row.measure} | ${row.value} | ${row.goal ?? ""} | ${row.ok === undefined ? "" : row.ok ? "yes" : "NO"} |`,
    );
  }
}
process.exitCode = failed ? 1 : 0;
