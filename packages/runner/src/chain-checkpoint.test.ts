// The chain checkpoint: a run reads only the records appended since it, and editing it is detected.
import { mkdir, mkdtemp, readdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendRunRecord, buildChainRecord, getHostFingerprint, readChainHead, verifyChain } from "@eval/audit-chain";
import type { EvalWarning } from "@eval/errors";
import { GENESIS_PREV_HASH, RUN_REPORT_SCHEMA_VERSION } from "@eval/models";
import type { BenchRunReportInput } from "@eval/models";
import { STATE_NAMES } from "@eval/state-layout";
import { readCheckpoint, verifyChainForRun } from "./chain-checkpoint.ts";

const HEX = "c".repeat(64);

/** A small valid report (one case) for this host. */
function smallReport(host: string, runId: string): BenchRunReportInput {
  return {
    schema_version: RUN_REPORT_SCHEMA_VERSION,
    run_id: runId,
    task_class: "t",
    harness_version: "0.1.0",
    sut_label: "replay",
    sut_digest: `blake3:${HEX}`,
    rubric_digest: `blake3:${HEX}`,
    cassette_corpus_digest: `blake3:${HEX}`,
    host_fingerprint: host,
    isolation_class: "subprocess-permission",
    sut_isolation: "harness",
    started_at: "2026-11-22T03:00:00Z",
    ended_at: "2026-11-22T03:00:05Z",
    complete: true,
    incomplete_reason: null,
    selection: {
      scope: "full",
      filter: null,
      task_class_case_count: 1,
      selected_case_count: 1,
      selected_case_ids_digest: `blake3:${HEX}`,
    },
    case_count: 1,
    per_case: [
      {
        case_id: "a",
        curation_class: "held-out",
        score: { passed: true, score: 1, breakdown: {}, failure_modes: [], cost_usd: 0, wall_clock_ms: 1 },
      },
    ],
    score_kind: "graded",
    mean_score: 1,
    score_stddev: 0,
    lower_bound_95: 0.5,
    lower_bound_method: "betting",
    bound_quantity: "mean_score",
    informational: {
      bca_lower_bound_95: null,
      bootstrap_resamples: 0,
      bootstrap_seed: `blake3:${HEX}`,
      wilson_lower_bound_95: null,
    },
    trials_per_case: 1,
    reliability: { case_count: 1, pass_at_1: 1, pass_at_k: 1, pass_hat_k: 1, flaky_case_ids: [] },
    harness_error_count: 0,
    harness_errored_case_ids: [],
    failed_trial_count: 0,
    passed_count: 1,
    total_cost_usd: 0,
    block_severity_failure_modes: [],
    prev_hash: GENESIS_PREV_HASH,
    chain_head: null,
  };
}

let stateDir: string;
let runsDir: string;
let host: string;
let warnings: EvalWarning[];
const options = () => ({ stateDir, runsDir, onWarning: (warning: EvalWarning) => warnings.push(warning) });

async function append(count: number): Promise<void> {
  for (let index = 0; index < count; index += 1)
    await appendRunRecord(smallReport(host, `r-${index}`), { runsDir, hostFingerprint: host });
}

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "checkpoint-"));
  runsDir = join(stateDir, "runs");
  host = await getHostFingerprint(stateDir);
  warnings = [];
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

describe("verifyChainForRun", () => {
  it("walks the whole chain once, then only the records appended since the checkpoint", async () => {
    await append(5);
    expect(await verifyChainForRun(options())).toMatchObject({ ok: true, records: 5, skipped: 0 });
    expect(await readCheckpoint(options())).toMatchObject({ records: 5 });
    await append(2);
    const second = await verifyChainForRun(options());
    expect(second).toMatchObject({ ok: true, records: 2, skipped: 5 });
    expect(second.head).toBe((await verifyChain({ runsDir })).head);
    expect(await readCheckpoint(options())).toMatchObject({ records: 7, head: second.head });
    expect(warnings).toEqual([]);
  });

  it("a checkpoint that cannot be written fails a run's check, and is a warning for a view's (bestEffort)", async () => {
    await append(2);
    // No checkpoint yet, and its MAC key's place taken by a directory: the walk succeeds, sealing fails.
    await mkdir(join(stateDir, "cache.key"));
    await expect(verifyChainForRun(options())).rejects.toThrow();
    expect(await verifyChainForRun({ ...options(), bestEffort: true })).toMatchObject({ ok: true, records: 2 });
    expect(warnings.map((w) => w.code)).toEqual(["chain.checkpoint_unwritten"]);
  });

  it("an edited checkpoint is detected (MAC) and ignored: the whole chain is walked", async () => {
    await append(3);
    await verifyChainForRun(options());
    const path = join(stateDir, STATE_NAMES.checkpoint);
    const text = await readFile(path, "utf8");
    await writeFile(path, text.replace('"records":3', '"records":2'));
    const result = await verifyChainForRun(options());
    expect(result).toMatchObject({ ok: true, records: 3, skipped: 0 });
    expect(warnings.map((w) => w.code)).toEqual(["chain.checkpoint_invalid"]);
    expect(warnings[0]!.message).toMatch(/fails its MAC/);
    // Re-sealed by the successful walk.
    expect(await readCheckpoint(options())).toMatchObject({ records: 3 });
  });

  it("a checkpoint without a MAC line, or for another runs directory, is ignored with a warning", async () => {
    await append(2);
    await verifyChainForRun(options());
    const path = join(stateDir, STATE_NAMES.checkpoint);
    const sealed = await readFile(path, "utf8");
    await writeFile(path, `${sealed.split("\n")[0]}\n`);
    expect(await readCheckpoint(options())).toBeNull();
    await writeFile(path, sealed);
    expect(await readCheckpoint({ ...options(), runsDir: join(stateDir, "other-runs") })).toBeNull();
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/no valid MAC line/),
      expect.stringMatching(/another runs directory/),
    ]);
  });

  it("catches a record deleted before the checkpoint (positions shift), an edited newer record, and a chain shorter than verified", async () => {
    await append(4);
    await verifyChainForRun(options());
    await append(1);
    const names = (await readdir(runsDir)).filter((name) => name.endsWith(".json")).sort();
    const newest = join(runsDir, names.at(-1)!);
    const original = await readFile(newest);
    await writeFile(newest, original.toString().replace('"mean_score":1', '"mean_score":0'));
    expect(await verifyChainForRun(options())).toMatchObject({ ok: false, firstBad: { file: names.at(-1) } });
    await writeFile(newest, original);
    await unlink(join(runsDir, names[1]!));
    const deleted = await verifyChainForRun(options());
    expect(deleted.ok).toBe(false);
    expect(deleted.firstBad!.reason).toMatch(/no longer at its place/);
    await unlink(join(runsDir, names[2]!));
    await unlink(join(runsDir, names[3]!));
    expect((await verifyChainForRun(options())).firstBad!.reason).toMatch(/fewer records than were verified/);
  });

  it("what it does not reread: an edit to a record older than the checkpoint is left to the full `verify`", async () => {
    await append(3);
    await verifyChainForRun(options());
    const oldest = (await readdir(runsDir)).filter((name) => name.endsWith(".json")).sort()[0]!;
    const path = join(runsDir, oldest);
    await writeFile(path, (await readFile(path, "utf8")).replace('"mean_score":1', '"mean_score":0'));
    expect((await verifyChainForRun(options())).ok).toBe(true);
    expect(await verifyChain({ runsDir })).toMatchObject({ ok: false, firstBad: { file: oldest } });
  });
});

describe("a lost checkpoint", () => {
  it("is rebuilt by one pass over the links: a later run reads only what was appended since", async () => {
    await append(4);
    await verifyChainForRun(options());
    await unlink(join(stateDir, STATE_NAMES.checkpoint));
    const rebuilt = await verifyChainForRun(options());
    expect(rebuilt).toMatchObject({ ok: true, records: 4, skipped: 0, head: (await verifyChain({ runsDir })).head });
    expect(await readCheckpoint(options())).toMatchObject({ records: 4, head: rebuilt.head });
    await append(1);
    expect(await verifyChainForRun(options())).toMatchObject({ ok: true, records: 1, skipped: 4 });
    expect(warnings).toEqual([]);
  });

  it("is not rebuilt over a tampered chain: a deleted record or an edited newest report is refused", async () => {
    await append(4);
    const names = (await readdir(runsDir)).filter((name) => name.endsWith(".json")).sort();
    await unlink(join(runsDir, names[1]!));
    expect(await verifyChainForRun(options())).toMatchObject({ ok: false, firstBad: { file: names[2] } });
    expect(await readCheckpoint(options())).toBeNull();
    const newest = join(runsDir, names[3]!);
    await writeFile(newest, (await readFile(newest, "utf8")).replace('"mean_score":1', '"mean_score":0'));
    expect((await verifyChainForRun(options())).ok).toBe(false);
    expect(await readCheckpoint(options())).toBeNull();
  });

  it("costs the links, not every report: an older report edited under intact hashes is left to `verify`", async () => {
    await append(3);
    const oldest = (await readdir(runsDir)).filter((name) => name.endsWith(".json")).sort()[0]!;
    const path = join(runsDir, oldest);
    await writeFile(path, (await readFile(path, "utf8")).replace('"mean_score":1', '"mean_score":0'));
    expect(await verifyChainForRun(options())).toMatchObject({ ok: true, records: 3 });
    expect(await verifyChain({ runsDir })).toMatchObject({ ok: false, firstBad: { file: oldest } });
  });
});

describe("verifyAfterAppend", () => {
  it("moves the checkpoint past this run's own record without rereading, and verifies records others appended in between", async () => {
    const { verifyAfterAppend } = await import("./chain-checkpoint.ts");
    await append(3);
    const verified = await verifyChainForRun(options());
    const own = await appendRunRecord(smallReport(host, "own"), { runsDir, hostFingerprint: host });
    const after = await verifyAfterAppend(options(), verified, {
      previous: own.previous,
      chainHash: own.record.chain_hash,
      file: basename(own.path),
      complete: true,
    });
    expect(after).toMatchObject({ ok: true, head: own.record.chain_hash, records: 4, complete: 4 });
    expect(await readCheckpoint(options())).toMatchObject({
      records: 4,
      head: own.record.chain_hash,
      headFile: basename(own.path),
    });
    // Another run appended between this run's check and its append: the newer records are read.
    const stale = await verifyChainForRun(options());
    await append(1);
    const mine = await appendRunRecord(smallReport(host, "mine"), { runsDir, hostFingerprint: host });
    const caughtUp = await verifyAfterAppend(options(), stale, {
      previous: mine.previous,
      chainHash: mine.record.chain_hash,
      file: basename(mine.path),
      complete: true,
    });
    expect(caughtUp).toMatchObject({ ok: true, head: mine.record.chain_hash, records: 2, skipped: 4 });
    expect(await readCheckpoint(options())).toMatchObject({ records: 6, head: mine.record.chain_hash });
  });
});

describe("an untouched runs directory", () => {
  it("costs one file read: the checkpoint's head record; any change at the top of the directory brings back the walk", async () => {
    await append(4);
    expect(await verifyChainForRun(options())).toMatchObject({ ok: true, records: 4, directoryUnchanged: false });
    expect(await verifyChainForRun(options())).toMatchObject({
      ok: true,
      records: 0,
      skipped: 4,
      directoryUnchanged: true,
    });
    // A record written by something that does not keep the head pointer (an older evalgate, a copy):
    // the directory's mtime moved, so the run lists the directory and verifies the new record.
    const head = await readChainHead(runsDir);
    const built = await buildChainRecord(
      { ...smallReport(host, "foreign"), prev_hash: head.head },
      {
        prevHash: head.head,
        sequence: 4,
        recordedAt: new Date(Date.parse(head.recordedAt!) + 1000).toISOString(),
        hostFingerprint: host,
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 20)); // past the file system's timestamp granularity
    await writeFile(join(runsDir, built.fileName), built.text, { mode: 0o600 });
    expect(await verifyChainForRun(options())).toMatchObject({
      ok: true,
      records: 1,
      skipped: 4,
      head: built.record.chain_hash,
      directoryUnchanged: false,
    });
    // An edited head record is caught even on the one-read path.
    expect(await verifyChainForRun(options())).toMatchObject({ directoryUnchanged: true });
    const path = join(runsDir, built.fileName);
    const text = await readFile(path, "utf8");
    await writeFile(path, text.replace('"mean_score":1', '"mean_score":0'));
    expect(await verifyChainForRun(options())).toMatchObject({ ok: false, firstBad: { file: built.fileName } });
  });
});
