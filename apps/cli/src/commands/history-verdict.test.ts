// The history index behind `promote-verdict` and `show` (it lists what a verdict pools, so a long history is not
// read record by record): a verdict through it is the verdict the chain gives, and tampering with it or with a
// record it lists cannot change a verdict. Real chains (appendRunRecord), the real CLI.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendRunRecord, getHostFingerprint, readChainHead } from "@eval/audit-chain";
import { loadOrCreateMacKey, sealEntry, splitEntry } from "@eval/cache";
import { invoke } from "../test-helpers.ts";
import { recordRuns } from "./audit.test-helpers.ts";

const REPO = join(import.meta.dirname, "..", "..", "..", "..");
const BENCH = join(REPO, "bench");
const TIERS = join(REPO, "docs", "trust-tiers.yaml");
const OTHER_SUT = `blake3:${"b".repeat(64)}`;
let dir: string;
let stateDir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cli-history-verdict-"));
  stateDir = join(dir, "state");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const indexFile = (): string => join(stateDir, "runs", ".index", "history.json");
/** The task class's catalog, what a verdict at the chain's head reads instead of the index (removed: the index is read). */
const catalogFile = (): string => join(stateDir, "runs", ".index", "catalog.vuln-remediation.json");
const common = () => ["--out", stateDir, "--bench-root", BENCH, "--trust-tiers", TIERS];
const verdictArgs = () => ["promote-verdict", ...common(), "--task-class", "vuln-remediation", "--run", "run-1"];

/** The verdict's judgement: everything but when and where it was written. */
async function judged(): Promise<Record<string, unknown>> {
  const result = await invoke(verdictArgs());
  expect(result.code).toBe(0);
  const { evaluated_at: _at, path: _path, ...rest } = JSON.parse(result.stdout.trim().split("\n").at(-1)!);
  return rest;
}

/**
 * run-0 passes every case, run-1 fails every case (one SUT: pooled, too weak for bronze); `other-sut` is run-0's
 * report under another SUT (passing, never pooled with run-1).
 */
async function history(): Promise<string[]> {
  const paths = await recordRuns(stateDir, [{ passed: 12 }, { passed: 0 }]);
  const runsDir = join(stateDir, "runs");
  const passing = JSON.parse(await readFile(paths[0]!, "utf8")).report;
  const other = { ...passing, run_id: "other-sut", sut_digest: OTHER_SUT };
  await appendRunRecord(
    { ...other, prev_hash: (await readChainHead(runsDir)).head, chain_head: null },
    { runsDir, hostFingerprint: await getHostFingerprint(stateDir) },
  );
  return paths;
}

interface StoredIndex {
  header: { schema_version: string; pooling: { key: { sut_digest: string } }[] };
  pieces: { run_id: string; pooling: number }[];
  mac: string;
}

async function readIndex(): Promise<StoredIndex> {
  const text = await readFile(indexFile(), "utf8");
  const [body, mac] = text.split("\n");
  const [header, ...pieces] = body!.split("\t");
  return { header: JSON.parse(header!), pieces: pieces.map((piece) => JSON.parse(piece)), mac: mac! };
}

const bodyOf = (index: StoredIndex): string =>
  [JSON.stringify(index.header), ...index.pieces.map((piece) => JSON.stringify(piece))].join("\t");

/** Points run `runId`'s entry at a pooling key like its own but for `sut`. */
function relabel(index: StoredIndex, runId: string, sut: string): void {
  const piece = index.pieces.find((p) => p.run_id === runId)!;
  const key = { ...index.header.pooling[piece.pooling]!, key: { ...index.header.pooling[piece.pooling]!.key } };
  key.key.sut_digest = sut;
  piece.pooling = index.header.pooling.push(key) - 1;
}

interface StoredCatalog {
  header: string;
  rows: unknown[][];
  mac: string;
}

async function readCatalog(): Promise<StoredCatalog> {
  const [body, mac] = (await readFile(catalogFile(), "utf8")).split("\n");
  const [header, ...rows] = body!.split("\t");
  return { header: header!, rows: rows.map((row) => JSON.parse(row) as unknown[]), mac: mac! };
}

const catalogBody = (catalog: StoredCatalog): string =>
  [catalog.header, ...catalog.rows.map((row) => JSON.stringify(row))].join("\t");

describe("verdicts through the history index", () => {
  it("the index is built by the first verdict and read by the next; the verdict is the same", async () => {
    await history();
    const first = await judged();
    expect(first).toMatchObject({
      evidence_sufficient: false,
      evidence_pool: {
        runs_pooled: ["run-0", "run-1"],
        runs_excluded: [{ reason: "another SUT", count: 1, newest: ["other-sut"] }],
      },
    });
    const index = await readIndex();
    expect(index.header.schema_version).toBe("evalgate.history_index.v2");
    expect(index.pieces.map((p) => p.run_id)).toEqual(["run-0", "run-1", "other-sut"]);
    expect(await judged()).toEqual(first);
  }, 120_000);

  it("ATTACK: the failing run hidden by an edited index (MAC not redone): the index is rebuilt, the verdict unchanged", async () => {
    await history();
    const honest = await judged();
    const index = await readIndex();
    relabel(index, "run-1", OTHER_SUT);
    await writeFile(indexFile(), `${bodyOf(index)}\n${index.mac}\n`);
    await rm(catalogFile());
    const result = await invoke(verdictArgs());
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/history index .* fails its MAC .*rebuilt it from the chain/);
    const { evaluated_at: _at, path: _path, ...verdict } = JSON.parse(result.stdout.trim().split("\n").at(-1)!);
    expect(verdict).toEqual(honest);
  }, 120_000);

  it("ATTACK: another SUT's passing run listed under the judged SUT by an index sealed with the state's own key: not pooled", async () => {
    await history();
    const honest = await judged();
    const index = await readIndex();
    const judgedKey = index.pieces.find((p) => p.run_id === "run-1")!.pooling;
    index.pieces.find((p) => p.run_id === "other-sut")!.pooling = judgedKey;
    const key = await loadOrCreateMacKey(join(stateDir, "cache.key"));
    await writeFile(indexFile(), sealEntry(key, "evalgate.history_index", bodyOf(index)));
    expect(splitEntry(await readFile(indexFile())).kind).toBe("sealed");
    await rm(catalogFile());
    // The index now lists other-sut as a candidate; its record says another SUT, and the record decides.
    expect(await judged()).toEqual(honest);
  }, 120_000);

  it("ATTACK: the failing run hidden by an edited catalog (MAC not redone): the catalog is rebuilt, the verdict unchanged", async () => {
    await history();
    const honest = await judged();
    const catalog = await readCatalog();
    catalog.rows.find((row) => row[0] === "run-1")![2] = catalog.rows.find((row) => row[0] === "other-sut")![2];
    await writeFile(catalogFile(), `${catalogBody(catalog)}\n${catalog.mac}\n`);
    const result = await invoke(verdictArgs());
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/task-class catalog .* fails its MAC .*rebuilt it from the history index/);
    const { evaluated_at: _at, path: _path, ...verdict } = JSON.parse(result.stdout.trim().split("\n").at(-1)!);
    expect(verdict).toEqual(honest);
  }, 120_000);

  it("ATTACK: another SUT's passing run listed under the judged SUT by a catalog sealed with the state's own key: not pooled", async () => {
    await history();
    const honest = await judged();
    const catalog = await readCatalog();
    catalog.rows.find((row) => row[0] === "other-sut")![2] = catalog.rows.find((row) => row[0] === "run-1")![2];
    const key = await loadOrCreateMacKey(join(stateDir, "cache.key"));
    await writeFile(catalogFile(), sealEntry(key, "evalgate.task_class_catalog", catalogBody(catalog)));
    expect(await judged()).toEqual(honest);
  }, 120_000);

  it("ATTACK: a pooled failing record edited in place to pass after the index and checkpoint were written: refused (exit 5)", async () => {
    const paths = await history();
    await judged(); // writes the checkpoint and the index: the next check reads only the head record
    const failing = await readFile(paths[1]!, "utf8");
    const forged = failing.replaceAll('"passed":false', '"passed":true').replaceAll('"score":0,', '"score":1,');
    expect(forged).not.toBe(failing);
    await writeFile(paths[1]!, forged);
    for (const args of [verdictArgs(), ["show", "run-1", ...common()]]) {
      const result = await invoke(args);
      expect(result.code).toBe(5);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(/does not verify: .*\.json: .*EVAL_CHAIN_TAMPERED/);
    }
  }, 120_000);
});
