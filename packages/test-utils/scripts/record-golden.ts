// Writes fixtures/golden-v1/ from a state dir that evalgate wrote: the chain records as they are, and
// for every case of every run the inputs of its cache key and the key the run recorded. The golden tests
// recompute those digests with the current code and must get the same bytes. Run once, with the code
// whose output is to be pinned:
//   node --conditions=@eval/source packages/test-utils/scripts/record-golden.ts <state-dir> <bench-root>
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

const [stateDir, benchRoot] = process.argv.slice(2);
if (stateDir === undefined || benchRoot === undefined)
  throw new Error("usage: record-golden.ts <state-dir> <bench-root>");
const out = new URL("../fixtures/golden-v1/", import.meta.url).pathname;
mkdirSync(join(out, "state", "runs"), { recursive: true });

const records = readdirSync(join(stateDir, "runs"))
  .filter((name) => name.endsWith(".json"))
  .sort();
// A cache hit writes no case detail: its key is the one an earlier run of the same case recorded.
const keys = new Map<string, string>();
const runs = records.map((file) => {
  copyFileSync(join(stateDir, "runs", file), join(out, "state", "runs", file));
  const record = JSON.parse(readFileSync(join(stateDir, "runs", file), "utf8"));
  const report = record.report;
  const benchPath = join(benchRoot, report.task_class);
  const digests = parse(readFileSync(join(benchPath, "cases", "digests.yaml"), "utf8")).cases;
  const cases = report.per_case.map(({ case_id }: { case_id: string }) => {
    const detailPath = join(stateDir, "runs", report.run_id, "cases", `${case_id}.json`);
    const recorded = existsSync(detailPath)
      ? (JSON.parse(readFileSync(detailPath, "utf8")).cache_key as string)
      : keys.get(`${report.task_class}/${case_id}`);
    if (recorded === undefined) throw new Error(`no cache key recorded for ${case_id}`);
    keys.set(`${report.task_class}/${case_id}`, recorded);
    const toml = readFileSync(join(benchPath, "cases", case_id, "case.toml"), "utf8");
    const pin = /^cassette_canary_pin\s*=\s*"([0-9a-f]+)"/m.exec(toml)![1];
    return { case_id, case_digest: digests[case_id].digest, cassette_canary_pin: pin, cache_key: recorded };
  });
  return { record_file: file, run_id: report.run_id, task_class: report.task_class, cases };
});
writeFileSync(join(out, "runs.json"), `${JSON.stringify({ runs }, null, 2)}\n`);
