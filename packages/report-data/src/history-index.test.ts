// The history index on a real chain (appendRunRecord): built on first read, extended by reading only the new
// records, and never trusted over the chain (an edited, unsealed or outdated index is rebuilt from the records).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendRunRecord, getHostFingerprint, readChainHead, RECORD_FILE_PATTERN } from "@eval/audit-chain";
import type { EvalWarning } from "@eval/errors";
import type { BenchRunReportInput } from "@eval/models";
import { runReport } from "@eval/test-utils";
import { loadOrCreateMacKey, sealEntry } from "@eval/cache";
import { readHistory } from "./history-index.ts";
import { listRecordedRuns } from "./run-list.ts";
import { verifiedEvidence } from "./verified-history.ts";

let stateDir: string;
let runsDir: string;
let warnings: EvalWarning[];
const onWarning = (warning: EvalWarning): void => void warnings.push(warning);
const indexFile = (): string => join(runsDir, ".index", "history.json");
const read = async () => [...(await readHistory({ stateDir, onWarning })).entries()];
const recordFiles = (): string[] =>
  readdirSync(runsDir)
    .filter((name) => RECORD_FILE_PATTERN.test(name))
    .sort();

async function append(report: BenchRunReportInput): Promise<void> {
  const host = await getHostFingerprint(stateDir);
  await appendRunRecord(
    { ...report, prev_hash: (await readChainHead(runsDir)).head, host_fingerprint: host },
    { runsDir, hostFingerprint: host },
  );
}

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "history-index-"));
  runsDir = join(stateDir, "runs");
  warnings = [];
  await append(runReport({ runId: "run-a", passed: 8 }));
  await append(runReport({ runId: "run-b", complete: false, unfinished: 2 }));
  await append(runReport({ runId: "run-c", passed: 12, taskClass: "migration-chainguard-distroless" }));
}, 60_000);
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

describe("the history index", () => {
  it("is built from the chain on first read, sealed, and read alone afterwards (a record it covers is not read again)", async () => {
    expect(() => readFileSync(indexFile())).toThrow();
    const first = await read();
    expect(first.map((s) => [s.run_id, s.sequence, s.evidence])).toEqual([
      ["run-a", 0, true],
      ["partial:run-b", 1, false],
      ["run-c", 2, true],
    ]);
    expect(first.map((s) => s.file)).toEqual(recordFiles());
    expect(readFileSync(indexFile(), "utf8")).toMatch(/\nhmac-sha256:[0-9a-f]{64}\n$/);
    // Clobber a covered record: a reader that went back to the records would now fail on it.
    writeFileSync(join(runsDir, recordFiles()[0]!), "not json");
    expect(await read()).toEqual(first);
    expect(warnings).toEqual([]);
  });

  it("is extended by the records appended since, reading only those", async () => {
    await read();
    writeFileSync(join(runsDir, recordFiles()[1]!), "not json");
    await append(runReport({ runId: "run-d", passed: 10 }));
    const history = await read();
    expect(history.map((s) => s.run_id)).toEqual(["run-a", "partial:run-b", "run-c", "run-d"]);
    expect(warnings).toEqual([]);
    expect(
      (await listRecordedRuns(stateDir, { taskClass: "vuln-remediation" }, 2, onWarning)).map((e) => e.run_id),
    ).toEqual(["run-d", "partial:run-b"]);
  });

  it("an edited index fails its MAC: rebuilt from the records, with a warning", async () => {
    await read();
    writeFileSync(indexFile(), readFileSync(indexFile(), "utf8").replace('"complete":false', '"complete":true'));
    const history = await read();
    expect(history.find((s) => s.run_id === "partial:run-b")?.complete).toBe(false);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      ["history.index_rebuilt", expect.stringContaining("fails its MAC")],
    ]);
    // Rewritten sealed: the next read is quiet.
    warnings = [];
    await read();
    expect(warnings).toEqual([]);
  });

  it("an index without its MAC line (truncated) is rebuilt", async () => {
    await read();
    writeFileSync(indexFile(), readFileSync(indexFile(), "utf8").split("\n")[0]!);
    expect(await read()).toHaveLength(3);
    expect(warnings.map((w) => w.message)).toEqual([expect.stringContaining("has no valid MAC line")]);
  });

  it("an index that is no longer a prefix of the chain (a record removed or replaced) is rebuilt, never trusted", async () => {
    const before = await read();
    const [first, second] = recordFiles();
    renameSync(join(runsDir, second!), join(stateDir, "moved.json"));
    const history = await read();
    expect(history.map((s) => s.file)).toEqual(recordFiles());
    expect(history).toHaveLength(2);
    expect(history[0]).toEqual(before[0]);
    expect(warnings.map((w) => w.code)).toEqual(["history.index_rebuilt"]);
    expect(first).toBe(history[0]!.file);
  });

  it("an index standing at the verified head is read as it stands: the view sees the chain it verified, without a second listing", async () => {
    const indexed = await read();
    const head = { records: 3, head: indexed.at(-1)!.chain_hash };
    // A run appends after the caller verified the chain: the view stays at the head it verified.
    await append(runReport({ runId: "run-d", passed: 10 }));
    const atHead = await readHistory({ stateDir, onWarning, verifiedHead: head });
    expect([...atHead.entries()]).toEqual(indexed);
    // Any other head (another count, another hash): the index is checked against the listing and extended.
    for (const other of [
      { ...head, records: 4 },
      { ...head, head: indexed[1]!.chain_hash },
    ]) {
      const listed = await readHistory({ stateDir, onWarning, verifiedHead: other });
      expect([...listed.entries()].map((s) => s.run_id)).toEqual(["run-a", "partial:run-b", "run-c", "run-d"]);
    }
    expect(warnings).toEqual([]);
  });

  it("an index standing at the verified head but no longer a prefix of the listing is still caught by the views' chain check", async () => {
    await read();
    const [, second] = recordFiles();
    renameSync(join(runsDir, second!), join(stateDir, "moved.json"));
    const viewed = await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    expect(viewed.chain.ok).toBe(false);
    expect(viewed.catalog).toBeUndefined();
    expect([...(await readHistory({ stateDir, onWarning })).entries()].map((s) => s.file)).toEqual(recordFiles());
  });

  it("an index that cannot be written is a warning: the history is still read from the chain", async () => {
    mkdirSync(indexFile(), { recursive: true });
    const history = await read();
    expect(history).toHaveLength(3);
    expect(warnings.map((w) => w.code)).toEqual(["history.index_unwritten"]);
    rmSync(indexFile(), { recursive: true });
  });

  it("an index written before it kept pooling keys (v1) is rebuilt; an empty chain's index has no entries", async () => {
    await read();
    const key = await loadOrCreateMacKey(join(stateDir, "cache.key"));
    const body = readFileSync(indexFile(), "utf8").split("\n")[0]!.split("\t");
    const v1 = [JSON.stringify({ schema_version: "evalgate.history_index.v1" }), ...body.slice(1)].join("\t");
    writeFileSync(indexFile(), sealEntry(key, "evalgate.history_index", v1));
    expect(await read()).toHaveLength(3);
    expect(warnings.map((w) => w.message)).toEqual([expect.stringContaining("unknown schema_version")]);
    const empty = await mkdtemp(join(tmpdir(), "history-index-empty-"));
    mkdirSync(join(empty, "runs"));
    expect((await readHistory({ stateDir: empty, onWarning })).length).toBe(0);
    expect((await readHistory({ stateDir: empty, onWarning })).head).toBeNull();
    await rm(empty, { recursive: true, force: true });
  });
});
