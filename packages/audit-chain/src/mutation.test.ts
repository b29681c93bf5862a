// Seeded random tampering: every mutation of a 60-record chain must be detected and the bad file named.
import {
  cpSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import canonicalize from "canonicalize";
import {
  appendRunRecord,
  chainHashOf,
  contentHashOfReport,
  readChainHead,
  recordFileName,
  verifyChain,
} from "./index.ts";
import { HOST, makeReport, seededRandom, steppingClock } from "./__fixtures__/reports.ts";

const RECORDS = 60;
const MUTATIONS = 1200;
let root: string;
let base: string;
let names: string[];
let head: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "audit-mutation-"));
  base = join(root, "base");
  const clock = steppingClock();
  for (let index = 0; index < RECORDS; index += 1) {
    const prev = (await readChainHead(base)).head;
    await appendRunRecord(makeReport({ prev_hash: prev, run_id: `run-${index}`, complete: index % 7 !== 3 }), {
      runsDir: base,
      hostFingerprint: HOST,
      now: clock,
    });
  }
  names = readdirSync(base)
    .filter((name) => name.endsWith(".json"))
    .sort();
  head = (await readChainHead(base)).head;
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Mutation = { kind: string; expectBad: readonly string[]; expectHead?: string };

/**
 * A fresh copy of the base chain made of hard links (fast); every write below goes through
 * `replaceFile`, which unlinks first, so a mutation never reaches the shared base files.
 */
function freshCopy(dir: string): void {
  mkdirSync(dir);
  for (const name of names) linkSync(join(base, name), join(dir, name));
}

function replaceFile(path: string, data: Buffer | string): void {
  unlinkSync(path);
  writeFileSync(path, data, { mode: 0o600 });
}

function recordedAtOf(name: string): number {
  return JSON.parse(readFileSync(join(base, name), "utf8")).recorded_at
    ? Date.parse(JSON.parse(readFileSync(join(base, name), "utf8")).recorded_at)
    : Number.NaN;
}

/** A record-shaped name that sorts at a random place in the chain and names no existing file. */
function randomRecordName(random: () => number): string {
  const ms = Date.parse("2026-11-01T00:00:00.000Z") - 5_000 + Math.floor(random() * (RECORDS + 10) * 1000);
  const hex = Array.from({ length: 12 }, () => "0123456789abcdef"[Math.floor(random() * 16)]).join("");
  return `${new Date(ms).toISOString().replaceAll(":", "-")}-${hex}.json`;
}

function successorOrHead(index: number): Mutation {
  // Deleting (or hiding) a record breaks the next record's link; the newest one is caught by the anchor.
  return index < names.length - 1
    ? { kind: "", expectBad: [names[index + 1]!] }
    : { kind: "", expectBad: [names[index - 1]!], expectHead: head };
}

async function mutate(dir: string, random: () => number): Promise<Mutation> {
  const pick = () => Math.floor(random() * names.length);
  const index = pick();
  const name = names[index]!;
  const path = join(dir, name);
  const kinds = [
    "flip",
    "flip",
    "flip",
    "delete",
    "swap",
    "duplicate",
    "insert",
    "insert-junk",
    "rename",
    "rename-foreign",
    "rename-hidden",
    "truncate",
  ];
  const kind = kinds[Math.floor(random() * kinds.length)]!;
  switch (kind) {
    case "flip": {
      const bytes = readFileSync(path);
      const offset = Math.floor(random() * bytes.length);
      bytes[offset] = bytes[offset]! ^ (1 + Math.floor(random() * 255));
      replaceFile(path, bytes);
      return { kind, expectBad: [name] };
    }
    case "delete":
      unlinkSync(path);
      return { ...successorOrHead(index), kind };
    case "swap": {
      let other = pick();
      while (other === index) other = pick();
      const a = readFileSync(path);
      replaceFile(path, readFileSync(join(dir, names[other]!)));
      replaceFile(join(dir, names[other]!), a);
      return { kind, expectBad: [name, names[other]!] };
    }
    case "duplicate": {
      const copy = randomRecordName(random);
      cpSync(path, join(dir, copy));
      return { kind, expectBad: [copy] };
    }
    case "insert": {
      // A forged record with every hash recomputed, linked to its predecessor: the successor's link exposes it.
      const position = 1 + Math.floor(random() * (names.length - 1));
      const before = JSON.parse(readFileSync(join(dir, names[position - 1]!), "utf8"));
      const report = { ...makeReport({ prev_hash: before.chain_hash, run_id: "forged" }), mean_score: 1 };
      const contentHash = await contentHashOfReport(report);
      const chainHash = chainHashOf(before.chain_hash, contentHash);
      const recordedAt = new Date(Date.parse(before.recorded_at) + 1 + Math.floor(random() * 998)).toISOString();
      const record = {
        schema_version: "evalgate.chain_record.v1",
        sequence: position,
        host_fingerprint: HOST,
        recorded_at: recordedAt,
        prev_hash: before.chain_hash,
        content_hash: contentHash,
        chain_hash: chainHash,
        report: { ...report, chain_head: chainHash },
      };
      const forged = recordFileName(recordedAt, chainHash);
      writeFileSync(join(dir, forged), `${canonicalize(record)}\n`, { mode: 0o600 });
      return { kind, expectBad: [forged] };
    }
    case "insert-junk": {
      const junk = randomRecordName(random);
      writeFileSync(join(dir, junk), readFileSync(path).subarray(0, Math.floor(random() * 2000)));
      return { kind, expectBad: [junk] };
    }
    case "rename": {
      const renamed = randomRecordName(random);
      renameSync(path, join(dir, renamed));
      return { kind, expectBad: [renamed] };
    }
    case "rename-foreign": {
      const renamed = `${name}.bak`;
      renameSync(path, join(dir, renamed));
      return { kind, expectBad: [renamed] };
    }
    case "rename-hidden":
      renameSync(path, join(dir, `.${name}`));
      return { ...successorOrHead(index), kind };
    case "truncate": {
      const bytes = readFileSync(path);
      replaceFile(path, bytes.subarray(0, Math.floor(random() * bytes.length)));
      return { kind, expectBad: [name] };
    }
    default:
      throw new Error(`unknown mutation ${kind}`);
  }
}

it(`detects ${MUTATIONS} seeded random mutations of a ${RECORDS}-record chain, each naming the bad file`, async () => {
  expect((await verifyChain({ runsDir: base, strict: true })).ok).toBe(true);
  expect(recordedAtOf(names[0]!)).toBeLessThan(recordedAtOf(names[1]!));
  const random = seededRandom(0x5eed);
  const missed: string[] = [];
  const byKind = new Map<string, number>();
  for (let trial = 0; trial < MUTATIONS; trial += 1) {
    const dir = join(root, `m${trial}`);
    freshCopy(dir);
    const mutation = await mutate(dir, random);
    byKind.set(mutation.kind, (byKind.get(mutation.kind) ?? 0) + 1);
    const result = await verifyChain({
      runsDir: dir,
      ...(mutation.expectHead === undefined ? {} : { expectHead: mutation.expectHead }),
    });
    if (result.ok || !mutation.expectBad.includes(result.firstBad!.file)) {
      missed.push(
        `trial ${trial} ${mutation.kind}: expected ${mutation.expectBad.join(" or ")}, got ${JSON.stringify(result.firstBad)}`,
      );
    }
    rmSync(dir, { recursive: true, force: true });
  }
  expect(missed).toEqual([]);
  expect(await verifyChain({ runsDir: base, strict: true })).toMatchObject({ ok: true, records: RECORDS });
  expect([...byKind.keys()].sort()).toEqual([
    "delete",
    "duplicate",
    "flip",
    "insert",
    "insert-junk",
    "rename",
    "rename-foreign",
    "rename-hidden",
    "swap",
    "truncate",
  ]);
}, 300_000);

it("detects deleting the newest records only against an anchor (--expect-head)", async () => {
  const dir = join(root, "newest");
  cpSync(base, dir, { recursive: true });
  for (const name of names.slice(-3)) unlinkSync(join(dir, name));
  expect((await verifyChain({ runsDir: dir })).ok).toBe(true);
  const anchored = await verifyChain({ runsDir: dir, expectHead: head });
  expect(anchored.ok).toBe(false);
  expect(anchored.firstBad).toMatchObject({ file: names.at(-4), expected: head });
});
