// verify's comparison of the history index with the chain, on a real chain and a real index (built by a view),
// edited the way someone holding the state's MAC key can: resealed, so no view would ever notice.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  appendRunRecord,
  chainHashOf,
  contentHashOfReport,
  getHostFingerprint,
  readChainHead,
  RECORD_FILE_PATTERN,
  recordFileName,
  verifyChain,
} from "@eval/audit-chain";
import { loadOrCreateMacKey, sealEntry } from "@eval/cache";
import type { EvalWarning } from "@eval/errors";
import type { BenchRunReportInput } from "@eval/models";
import { runReport } from "@eval/test-utils";
import { checkHistoryIndex, HistoryIndexDisagrees } from "./history-index-check.ts";
import { readHistory } from "./history-index.ts";

let stateDir: string;
let runsDir: string;
let warnings: EvalWarning[];
const onWarning = (warning: EvalWarning): void => void warnings.push(warning);
const indexFile = (): string => join(runsDir, ".index", "history.json");
const check = (strict = false, from = 0) => checkHistoryIndex({ stateDir, strict, from, onWarning });

async function append(report: BenchRunReportInput): Promise<void> {
  const host = await getHostFingerprint(stateDir);
  await appendRunRecord(
    { ...report, prev_hash: (await readChainHead(runsDir)).head, host_fingerprint: host },
    { runsDir, hostFingerprint: host },
  );
}

/** The index's entries (tab-separated JSON texts after the header), edited by `edit` and sealed again with the state's key. */
async function reseal(edit: (entries: string[]) => string[]): Promise<void> {
  const [header, ...entries] = readFileSync(indexFile(), "utf8").split("\n")[0]!.split("\t");
  const key = await loadOrCreateMacKey(join(stateDir, "cache.key"));
  writeFileSync(indexFile(), sealEntry(key, "evalgate.history_index", [header, ...edit(entries)].join("\t")));
}

const RUNS = ["run-a", "run-b", "run-c", "run-d"];

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "history-index-check-"));
  runsDir = join(stateDir, "runs");
  warnings = [];
  for (const [at, runId] of RUNS.entries()) await append(runReport({ runId, passed: 6 + at }));
  await readHistory({ stateDir, onWarning }); // a view builds the index
}, 60_000);
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

describe("verify's history index check", () => {
  it("agrees with the chain it was built from; records appended since are behind, not missing", async () => {
    expect((await check(true)).check).toMatchObject({ state: "agrees", entries: 4, behind: 0, compared: 4 });
    await append(runReport({ runId: "run-e", passed: 3 }));
    const { check: later, fault } = await check(true);
    expect(later).toMatchObject({ state: "agrees", entries: 4, behind: 1, disagreements: 0, listed: [] });
    expect(fault).toBeNull();
    expect(warnings).toEqual([]);
  });

  it("no index yet: absent, nothing to compare", async () => {
    await rm(indexFile());
    expect((await check(true)).check).toMatchObject({ state: "absent", entries: 0, behind: 4, problem: null });
  });

  it("an entry whose summary was edited and resealed: named with the field and both values (a warning, a failure under strict)", async () => {
    await reseal((entries) =>
      entries.map((entry, at) => (at === 1 ? entry.replace(/"pass_rate":[0-9.]+/, '"pass_rate":0.99') : entry)),
    );
    const { check: found, fault } = await check();
    expect(found.state).toBe("disagrees");
    expect(found.listed).toEqual([
      {
        run_id: "run-b",
        file: readdirSync(runsDir)
          .filter((name) => RECORD_FILE_PATTERN.test(name))
          .sort()[1],
        kind: "summary",
        detail: `pass_rate: index 0.99, record ${7 / 12}`,
      },
    ]);
    expect(fault).toBeNull();
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      [
        "verify.history_index",
        expect.stringMatching(
          /first run run-b \(summary: pass_rate: index 0\.99, record 0\.58\d+\).*remove .*history\.json/,
        ),
      ],
    ]);
    const strict = await check(true);
    expect(strict.fault).toBeInstanceOf(HistoryIndexDisagrees);
    expect(strict.fault!.code).toBe("EVAL_HISTORY_INDEX_DISAGREES");
    expect(strict.fault!.fault).toMatchObject({ file: indexFile(), found: "summary: run-b" });
  });

  it("an edited pooling key or case list (what a verdict pools by) is a disagreement too", async () => {
    await reseal((entries) =>
      entries.map((entry, at) => (at === 2 ? entry.replace(/"pooling":0/, '"pooling":7') : entry)),
    );
    const { check: found } = await check();
    expect(found.listed).toEqual([
      expect.objectContaining({
        run_id: "run-c",
        kind: "summary",
        detail: expect.stringMatching(/^pooling: index \(none\), record \{/),
      }),
    ]);
  });

  it("an entry deleted: the run is named missing", async () => {
    await reseal((entries) => entries.filter((_, at) => at !== 1));
    const { check: found } = await check();
    expect(found).toMatchObject({ state: "disagrees", entries: 3, behind: 0, disagreements: 1 });
    expect(found.listed).toEqual([
      expect.objectContaining({
        run_id: "run-b",
        kind: "missing",
        detail: "the record at chain position 1 has no index entry",
      }),
    ]);
  });

  it("an entry added for a run the chain does not hold (or listed twice): named extra", async () => {
    await reseal((entries) => [
      ...entries,
      entries[3]!
        .replace(/"file":"[^"]+"/, '"file":"2030-01-01T00-00-00.000Z-0123456789ab.json"')
        .replace(/run-d/g, "run-x"),
      entries[0]!,
    ]);
    const { check: found } = await check();
    expect(found.listed.map((d) => [d.run_id, d.kind, d.detail])).toEqual([
      ["run-a", "extra", "listed twice"],
      ["run-x", "extra", "the index lists a run the chain has no record of"],
    ]);
  });

  it("entries in the wrong order: the one listed too late is named, after whom", async () => {
    await reseal(([a, b, c, d]) => [a!, c!, b!, d!]);
    const { check: found } = await check();
    expect(found.listed).toEqual([
      expect.objectContaining({
        run_id: "run-b",
        kind: "order",
        detail: "index entry 2 comes after the entry of run run-c, which the chain records later",
      }),
    ]);
  });

  it("an index that fails its MAC is unusable: a warning, a failure under strict", async () => {
    writeFileSync(indexFile(), readFileSync(indexFile(), "utf8").replace("run-a", "run-z"));
    const { check: found, fault } = await check();
    expect(found).toMatchObject({ state: "unusable", problem: expect.stringContaining("fails its MAC") });
    expect(fault).toBeNull();
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^the history index fails its MAC/)]);
    expect((await check(true)).fault!.fault.found).toMatch(/fails its MAC/);
  });

  it("under --since only the window's summaries are compared; order, missing and extra entries always", async () => {
    await reseal((entries) =>
      entries.map((entry, at) => (at === 0 ? entry.replace(/"pass_rate":[0-9.]+/, '"pass_rate":1') : entry)),
    );
    expect((await check(false, 1)).check).toMatchObject({ state: "agrees", compared: 3 });
    expect((await check(false, 0)).check.listed).toEqual([expect.objectContaining({ run_id: "run-a" })]);
  });

  it("a record whose report is no version's shape (hashes intact, so plain verify holds): no entry agrees with it", async () => {
    const files = readdirSync(runsDir)
      .filter((name) => RECORD_FILE_PATTERN.test(name))
      .sort();
    const text = readFileSync(join(runsDir, files.at(-1)!), "utf8");
    const last = JSON.parse(text) as { report: object; chain_hash: string; recorded_at: string };
    const v9 = "evalgate.bench_run_report.v9";
    const report = { ...last.report, run_id: "run-odd", prev_hash: last.chain_hash, schema_version: v9 };
    const contentHash = await contentHashOfReport(report);
    const chainHash = chainHashOf(last.chain_hash, contentHash);
    const recordedAt = new Date(Date.parse(last.recorded_at) + 1000).toISOString();
    const record = {
      ...last,
      sequence: files.length,
      recorded_at: recordedAt,
      prev_hash: last.chain_hash,
      content_hash: contentHash,
      chain_hash: chainHash,
      report: { ...report, chain_head: chainHash },
    };
    const file = recordFileName(recordedAt, chainHash);
    writeFileSync(join(runsDir, file), `${JSON.stringify(sorted(record))}\n`, { mode: 0o600 });
    expect((await verifyChain({ runsDir })).firstBad).toBeNull();
    await reseal((entries) => [...entries, entries[3]!.replace(/"file":"[^"]+"/, `"file":"${file}"`)]);
    const { check: found } = await check();
    expect(found.listed).toEqual([
      expect.objectContaining({
        file,
        kind: "summary",
        detail: expect.stringMatching(/^the record cannot be read as a report/),
      }),
    ]);
  });
});

/** `value` with every object's keys in sorted order: canonical JSON (RFC 8785) for the values a report holds. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, sorted(v)]),
  );
}
