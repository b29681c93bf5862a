import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import canonicalize from "canonicalize";
import { blake3 } from "@noble/hashes/blake3.js";
import { GENESIS_PREV_HASH } from "@eval/models";
import {
  appendRunRecord,
  ChainTampered,
  getHostFingerprint,
  readChainHead,
  RECORD_FILE_PATTERN,
  verifyChain,
} from "./index.ts";
import { HOST, makeReport, steppingClock } from "./__fixtures__/reports.ts";

let dir: string;
let runsDir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "audit-chain-"));
  runsDir = join(dir, "runs");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function appendN(
  count: number,
  clock = steppingClock(),
  overrides: (index: number) => Record<string, unknown> = () => ({}),
) {
  const paths: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const { head } = await readChainHead(runsDir);
    const { path } = await appendRunRecord(
      makeReport({ prev_hash: head, run_id: `run-${index}`, ...overrides(index) }),
      { runsDir, hostFingerprint: HOST, now: clock },
    );
    paths.push(path);
  }
  return paths;
}

describe("appendRunRecord", () => {
  it("chains records: prev_hash, content hash and chain hash recompute independently", async () => {
    const [first, second] = await appendN(2);
    const a = JSON.parse(await readFile(first!, "utf8"));
    const b = JSON.parse(await readFile(second!, "utf8"));
    expect(a.prev_hash).toBe(GENESIS_PREV_HASH);
    expect(a.sequence).toBe(0);
    expect(b.prev_hash).toBe(a.chain_hash);
    expect(b.sequence).toBe(1);
    // Independent recomputation: node's SHA-256, the canonicalize library, BLAKE3 by hand.
    const content = `blake3:${Buffer.from(blake3(Buffer.from(canonicalize({ ...b.report, chain_head: null })!))).toString("hex")}`;
    expect(b.content_hash).toBe(content);
    expect(b.chain_hash).toBe(
      `sha256:${createHash("sha256").update(`${b.prev_hash}\n${content}`, "utf8").digest("hex")}`,
    );
    expect(b.report.chain_head).toBe(b.chain_hash);
    // The file is exactly RFC 8785 canonical JSON plus one LF, mode 0600, named after its content.
    expect(await readFile(second!, "utf8")).toBe(`${canonicalize(b)}\n`);
    expect((await stat(second!)).mode & 0o777).toBe(0o600);
    const name = second!.slice(runsDir.length + 1);
    expect(name).toMatch(RECORD_FILE_PATTERN);
    expect(name).toBe(`${b.recorded_at.replaceAll(":", "-")}-${b.chain_hash.slice(7, 19)}.json`);
    expect(await readChainHead(runsDir)).toMatchObject({
      head: b.chain_hash,
      nextSequence: 2,
      records: 2,
      hostFingerprint: HOST,
    });
  });

  it("returns the record with chain_head filled and keeps name order as chain order when the clock steps back", async () => {
    const times = [
      Date.parse("2026-11-02T00:00:00Z"),
      Date.parse("2026-11-01T00:00:00Z"),
      Date.parse("2026-11-01T00:00:00Z"),
    ];
    let call = 0;
    const clock = () => new Date(times[call++]!);
    await appendN(3, clock);
    const names = (await readdir(runsDir)).filter((name) => name.endsWith(".json")).sort();
    const sequences = await Promise.all(
      names.map(async (name) => JSON.parse(await readFile(join(runsDir, name), "utf8")).sequence),
    );
    expect(sequences).toEqual([0, 1, 2]);
    expect((await verifyChain({ runsDir })).ok).toBe(true);
  });

  it("links a report planned against an older head to the current head instead of refusing it", async () => {
    await appendN(1);
    const { head } = await readChainHead(runsDir);
    const { record, previous } = await appendRunRecord(makeReport({ prev_hash: GENESIS_PREV_HASH, run_id: "late" }), {
      runsDir,
      hostFingerprint: HOST,
    });
    expect(previous.head).toBe(head);
    expect(record.prev_hash).toBe(head);
    expect(record.report.prev_hash).toBe(head);
    expect(record.sequence).toBe(1);
    expect(await verifyChain({ runsDir, strict: true })).toMatchObject({ ok: true, records: 2 });
  });

  it("rejects invalid reports, a filled chain_head, and a foreign host", async () => {
    const options = { runsDir, hostFingerprint: HOST };
    await expect(
      appendRunRecord({ ...makeReport({ prev_hash: GENESIS_PREV_HASH }), mean_score: 2 }, options),
    ).rejects.toMatchObject({ code: "EVAL_REPORT_INVALID" });
    await expect(
      appendRunRecord(makeReport({ prev_hash: GENESIS_PREV_HASH, chain_head: GENESIS_PREV_HASH }), options),
    ).rejects.toThrow(/chain_head is already set/);
    await expect(
      appendRunRecord(makeReport({ prev_hash: GENESIS_PREV_HASH }), {
        runsDir,
        hostFingerprint: "0b6f6f0f-3b7d-4c1e-9a55-5f0c7e1a2a11",
      }),
    ).rejects.toThrow(/is not this host's/);
    await appendN(1);
    const other = "0b6f6f0f-3b7d-4c1e-9a55-5f0c7e1a2a11";
    const { head } = await readChainHead(runsDir);
    await expect(
      appendRunRecord(makeReport({ prev_hash: head, host_fingerprint: other }), { runsDir, hostFingerprint: other }),
    ).rejects.toThrow(/belongs to host/);
  });

  it("refuses to append on top of a tampered head", async () => {
    const [path] = await appendN(1);
    await writeFile(path!, (await readFile(path!, "utf8")).replace('"mean_score":0.9', '"mean_score":1'));
    await expect(readChainHead(runsDir)).rejects.toBeInstanceOf(ChainTampered);
    await expect(readChainHead(runsDir)).rejects.toMatchObject({ code: "EVAL_CHAIN_TAMPERED" });
  });

  it("detects a newest record whose sequence does not count the records before it", async () => {
    const paths = await appendN(3);
    await rm(paths[0]!);
    await expect(readChainHead(runsDir)).rejects.toThrow(/sequence does not match the number of records/);
  });

  it("times out with a conflict when another holder keeps the lock", async () => {
    await appendN(1);
    await mkdir(join(runsDir, ".append.lock"));
    const { head } = await readChainHead(runsDir);
    // A fresh lock (mtime now) is honoured; with a long stale threshold the append gives up.
    const start = Date.now();
    const attempt = appendRunRecord(makeReport({ prev_hash: head }), {
      runsDir,
      hostFingerprint: HOST,
      lockStaleMs: 120_000,
      lockWaitMs: 2_000,
    });
    await expect(attempt).rejects.toThrow(/stayed locked/);
    expect(Date.now() - start).toBeGreaterThan(1_000);
  }, 60_000);

  it("takes over a stale lock left by a crashed holder", async () => {
    await appendN(1);
    const lock = join(runsDir, ".append.lock");
    await mkdir(lock);
    const old = new Date(Date.now() - 60_000);
    const { utimes } = await import("node:fs/promises");
    await utimes(lock, old, old);
    const { head } = await readChainHead(runsDir);
    await appendRunRecord(makeReport({ prev_hash: head }), { runsDir, hostFingerprint: HOST });
    expect((await verifyChain({ runsDir })).records).toBe(2);
  });
});

describe("verifyChain", () => {
  it("verifies an empty or missing chain", async () => {
    expect(await verifyChain({ runsDir })).toEqual({
      ok: true,
      records: 0,
      complete: 0,
      incomplete: 0,
      head: GENESIS_PREV_HASH,
      headFile: null,
      firstBad: null,
      skipped: 0,
      hostFingerprint: null,
    });
    expect((await verifyChain({ runsDir, expectHead: GENESIS_PREV_HASH })).ok).toBe(true);
    const missing = await verifyChain({ runsDir, expectHead: `sha256:${"1".repeat(64)}` });
    expect(missing.ok).toBe(false);
    expect(missing.firstBad?.file).toBe("(empty chain)");
  });

  it("counts complete and partial records separately and ignores per-run detail directories", async () => {
    await appendN(4, steppingClock(), (index) => (index === 2 ? { complete: false, run_id: "partial:run-2" } : {}));
    await mkdir(join(runsDir, "run-1", "cases"), { recursive: true });
    await writeFile(join(runsDir, "run-1", "cases", "001.json"), "{}");
    await writeFile(join(runsDir, ".DS_Store"), "x");
    const result = await verifyChain({ runsDir });
    expect(result).toMatchObject({
      ok: true,
      records: 4,
      complete: 3,
      incomplete: 1,
      skipped: 0,
      hostFingerprint: HOST,
    });
    expect(result.head).toBe((await readChainHead(runsDir)).head);
  });

  it("strict mode also rejects loose permissions and dotfiles, and validates the schema", async () => {
    const paths = await appendN(2);
    expect((await verifyChain({ runsDir, strict: true })).ok).toBe(true);
    await chmod(paths[0]!, 0o644);
    expect((await verifyChain({ runsDir })).ok).toBe(true);
    const loose = await verifyChain({ runsDir, strict: true });
    expect(loose.firstBad).toMatchObject({ reason: expect.stringMatching(/0600/), found: "0644" });
    await chmod(paths[0]!, 0o600);
    await writeFile(join(runsDir, ".notes"), "x");
    expect((await verifyChain({ runsDir, strict: true })).firstBad?.file).toBe(".notes");
  });

  it("strict mode names a record whose hashes check out but whose report breaks the schema", async () => {
    // A forger who recomputes every hash can write any content; strict still rejects invalid data.
    const { contentHashOfReport, chainHashOf, recordFileName } = await import("./index.ts");
    const report = { ...makeReport({ prev_hash: GENESIS_PREV_HASH }), mean_score: 7 } as Record<string, unknown>;
    const content = await contentHashOfReport(report);
    const chain = chainHashOf(GENESIS_PREV_HASH, content);
    const recordedAt = "2026-11-01T00:00:00.000Z";
    const record = {
      schema_version: "evalgate.chain_record.v1",
      sequence: 0,
      host_fingerprint: HOST,
      recorded_at: recordedAt,
      prev_hash: GENESIS_PREV_HASH,
      content_hash: content,
      chain_hash: chain,
      report: { ...report, chain_head: chain },
    };
    await mkdir(runsDir, { recursive: true });
    await writeFile(join(runsDir, recordFileName(recordedAt, chain)), `${canonicalize(record)}\n`, { mode: 0o600 });
    expect((await verifyChain({ runsDir })).ok).toBe(true);
    expect((await verifyChain({ runsDir, strict: true })).firstBad?.reason).toMatch(/schema/);
  });

  it("verifies records whose breakdown has integer-like keys (non-native key order)", async () => {
    const report = makeReport({ prev_hash: GENESIS_PREV_HASH });
    const perCase = report.per_case.map((entry) => ({
      ...entry,
      score: { ...entry.score, breakdown: { "10": 1, "9": 0.5, a: 0 } },
    }));
    await appendRunRecord({ ...report, per_case: perCase }, { runsDir, hostFingerprint: HOST });
    expect(await verifyChain({ runsDir, strict: true })).toMatchObject({ ok: true, records: 1 });
  });

  it("--since verifies the window and anchors it on the record before", async () => {
    await appendN(5);
    const all = await verifyChain({ runsDir });
    const window = await verifyChain({ runsDir, since: "2026-11-01T00:00:03Z" });
    expect(window).toMatchObject({ ok: true, records: 2, skipped: 3, head: all.head });
    expect((await verifyChain({ runsDir, since: "2030-01-01" })).records).toBe(0);
    await expect(verifyChain({ runsDir, since: "yesterday" })).rejects.toMatchObject({ code: "EVAL_USAGE" });
  });

  it("--expect-head accepts any record of the chain, even one before the --since window", async () => {
    await appendN(4);
    const names = (await readdir(runsDir)).filter((name) => name.endsWith(".json")).sort();
    const second = JSON.parse(await readFile(join(runsDir, names[1]!), "utf8")).chain_hash as string;
    expect((await verifyChain({ runsDir, expectHead: second })).ok).toBe(true);
    expect((await verifyChain({ runsDir, expectHead: second.slice(7).toUpperCase() })).ok).toBe(true);
    expect((await verifyChain({ runsDir, expectHead: second, since: "2026-11-01T00:00:03Z" })).ok).toBe(true);
    const gone = await verifyChain({ runsDir, expectHead: `sha256:${"2".repeat(64)}`, since: "2026-11-01T00:00:03Z" });
    expect(gone.firstBad).toMatchObject({
      file: names[3],
      reason: expect.stringMatching(/newest records were deleted/),
    });
    await expect(verifyChain({ runsDir, expectHead: "abc" })).rejects.toMatchObject({ code: "EVAL_USAGE" });
  });

  it("names a second chain mixed into the directory", async () => {
    await appendN(2);
    const other = join(dir, "other");
    for (let index = 0; index < 2; index += 1) {
      const { head } = await readChainHead(other);
      await appendRunRecord(makeReport({ prev_hash: head }), {
        runsDir: other,
        hostFingerprint: HOST,
        now: () => new Date(Date.parse("2026-11-01T00:00:00.500Z") + index * 1000),
      });
    }
    const { cp } = await import("node:fs/promises");
    const names = (await readdir(other)).filter((name) => name.endsWith(".json")).sort();
    await cp(join(other, names[0]!), join(runsDir, names[0]!));
    const result = await verifyChain({ runsDir });
    expect(result.firstBad).toMatchObject({ file: names[0], reason: expect.stringMatching(/second chain/) });
  });
});

describe("getHostFingerprint", () => {
  it("creates a UUID once (0600) and returns the same one after, also under concurrent first use", async () => {
    const ids = await Promise.all(Array.from({ length: 8 }, () => getHostFingerprint(dir)));
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(await getHostFingerprint(dir)).toBe(ids[0]);
    expect((await stat(join(dir, "host_id"))).mode & 0o777).toBe(0o600);
  });

  it("refuses a corrupt host_id with a one-line error", async () => {
    await writeFile(join(dir, "host_id"), "not-a-uuid\n");
    await expect(getHostFingerprint(dir)).rejects.toMatchObject({
      code: "EVAL_IO",
      message: expect.stringMatching(/does not hold a host UUID/),
    });
  });

  it("reports an unreadable state directory as an IO error", async () => {
    await writeFile(join(dir, "file"), "x");
    await expect(getHostFingerprint(join(dir, "file"))).rejects.toMatchObject({ code: "EVAL_IO" });
  });
});

describe("latestRun", () => {
  it("returns the newest record of a task class that the predicate accepts, or null", async () => {
    await appendN(4, steppingClock(), (index) => ({
      task_class: index === 1 ? "other-class" : "vuln-remediation",
      complete: index !== 3,
      run_id: index === 3 ? "partial:run-3" : `run-${index}`,
    }));
    const { latestRun } = await import("./index.ts");
    expect((await latestRun(runsDir, "vuln-remediation", (report) => report.complete))?.record.report.run_id).toBe(
      "run-2",
    );
    expect((await latestRun(runsDir, "vuln-remediation"))?.record.report.run_id).toBe("partial:run-3");
    expect(
      (await latestRun(runsDir, null, (report) => report.task_class === "other-class"))?.record.report.run_id,
    ).toBe("run-1");
    expect((await latestRun(runsDir, "other-class"))?.file).toMatch(RECORD_FILE_PATTERN);
    expect(await latestRun(runsDir, "vuln-remediation", (report) => report.run_id === "run-9")).toBeNull();
    expect(await latestRun(runsDir, "nobody")).toBeNull();
    expect(await latestRun(join(dir, "missing"), "nobody")).toBeNull();
  });

  it("findRun finds a run by id with or without its partial: prefix, of a task class when asked, and names a missing one", async () => {
    await appendN(4, steppingClock(), (index) => ({
      task_class: index === 1 ? "other-class" : "vuln-remediation",
      complete: index !== 3,
      run_id: index === 3 ? "partial:run-3" : `run-${index}`,
    }));
    const { bareRunId, findRun, isRun } = await import("./index.ts");
    expect((await findRun(runsDir, "run-3")).record.report.run_id).toBe("partial:run-3");
    expect((await findRun(runsDir, "partial:run-3")).record.report.run_id).toBe("partial:run-3");
    expect((await findRun(runsDir, "run-1")).record.report.task_class).toBe("other-class");
    await expect(findRun(runsDir, "run-1", "vuln-remediation")).rejects.toMatchObject({
      code: "EVAL_REPORT_NOT_FOUND",
      message: expect.stringContaining("no run run-1 of vuln-remediation is recorded in"),
    });
    await expect(findRun(runsDir, "run-9")).rejects.toMatchObject({
      code: "EVAL_REPORT_NOT_FOUND",
      message: expect.stringContaining("no run run-9 is recorded in"),
    });
    expect([bareRunId("partial:run-3"), bareRunId("run-3"), bareRunId("xpartial:run-3")]).toEqual([
      "run-3",
      "run-3",
      "xpartial:run-3",
    ]);
    const report = (await findRun(runsDir, "run-3")).record.report;
    expect([isRun(report, "run-3"), isRun(report, "partial:run-3"), isRun(report, "run-30")]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("refuses unreadable records on the way", async () => {
    const paths = await appendN(2);
    const { latestRun } = await import("./index.ts");
    await writeFile(paths[1]!, "{");
    await expect(latestRun(runsDir, "vuln-remediation")).rejects.toBeInstanceOf(ChainTampered);
    await writeFile(paths[1]!, "{}\n");
    await expect(latestRun(runsDir, "vuln-remediation")).rejects.toThrow(/chain-record schema/);
  });
});

describe("verifyChainFrom", () => {
  it("checks only the records after a verified prefix, and the prefix's last record in its place", async () => {
    const { verifyChainFrom } = await import("./index.ts");
    await appendN(6);
    const full = await verifyChain({ runsDir });
    const names = (await readdir(runsDir)).filter((name) => name.endsWith(".json")).sort();
    const fourth = JSON.parse(await readFile(join(runsDir, names[3]!), "utf8")) as { chain_hash: string };
    expect(await verifyChainFrom(runsDir, { records: 4, head: fourth.chain_hash })).toMatchObject({
      ok: true,
      records: 2,
      skipped: 4,
      head: full.head,
      complete: 2,
    });
    expect(await verifyChainFrom(runsDir, { records: 0, head: GENESIS_PREV_HASH })).toMatchObject({
      ok: true,
      records: 6,
      skipped: 0,
    });
    expect(await verifyChainFrom(runsDir, { records: 6, head: full.head })).toMatchObject({
      ok: true,
      records: 0,
      head: full.head,
    });
    // A prefix whose head is not the record at that position: something before it changed.
    const wrong = await verifyChainFrom(runsDir, { records: 3, head: fourth.chain_hash });
    expect(wrong).toMatchObject({ ok: false, firstBad: { file: names[2], expected: fourth.chain_hash } });
    expect(await verifyChainFrom(runsDir, { records: 9, head: full.head })).toMatchObject({
      ok: false,
      firstBad: { reason: expect.stringMatching(/fewer records than were verified/) },
    });
  });
});

describe("the head pointer", () => {
  it("names the newest record after every append; a pointer to nothing valid falls back to listing", async () => {
    const {
      RUNS_NAMES: { index: INDEX_DIR },
    } = await import("@eval/state-layout");
    await appendN(3);
    const listed = await readChainHead(runsDir);
    expect(await readChainHead(runsDir, { usePointer: true })).toEqual(listed);
    expect(JSON.parse(await readFile(join(runsDir, INDEX_DIR, "head.json"), "utf8"))).toEqual({
      file: listed.file,
      records: 3,
    });
    await writeFile(
      join(runsDir, INDEX_DIR, "head.json"),
      JSON.stringify({ file: "2020-01-01T00-00-00.000Z-000000000000.json", records: 3 }),
    );
    expect(await readChainHead(runsDir, { usePointer: true })).toEqual(listed);
    await writeFile(join(runsDir, INDEX_DIR, "head.json"), "not json");
    expect(await readChainHead(runsDir, { usePointer: true })).toEqual(listed);
    // An append trusting a valid pointer links to the head it names, and the chain stays linear.
    await appendN(1, steppingClock(), () => ({ run_id: "run-3" }));
    const { record } = await appendRunRecord(makeReport({ prev_hash: GENESIS_PREV_HASH, run_id: "pointer" }), {
      runsDir,
      hostFingerprint: HOST,
      trustHeadPointer: true,
    });
    expect(record.sequence).toBe(4);
    expect(await verifyChain({ runsDir, strict: true })).toMatchObject({ ok: true, records: 5 });
  });
});
