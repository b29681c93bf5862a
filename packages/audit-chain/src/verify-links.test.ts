// The links-only pass that rebuilds a lost checkpoint: it agrees with the full walk on every fault that
// moves, removes or re-hashes a record, and leaves only a report edited under intact hashes to `verify`.
import { mkdtemp, readdir, readFile, rename, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GENESIS_PREV_HASH } from "@eval/models";
import { appendRunRecord, verifyChain, verifyChainLinks } from "./index.ts";
import { generateSigningKey, parseSigningKey } from "./signing.ts";
import type { SigningKey } from "./signing.ts";
import { HOST, makeReport, steppingClock } from "./__fixtures__/reports.ts";

let runsDir: string;
beforeEach(async () => {
  runsDir = join(await mkdtemp(join(tmpdir(), "evalgate-links-")), "runs");
});
afterEach(async () => {
  await rm(join(runsDir, ".."), { recursive: true, force: true });
});

async function chain(count: number, signingKey: SigningKey | null = null): Promise<string[]> {
  const clock = steppingClock();
  for (let index = 0; index < count; index += 1)
    await appendRunRecord(makeReport({ prev_hash: GENESIS_PREV_HASH, run_id: `run-${index}` }), {
      runsDir,
      hostFingerprint: HOST,
      now: clock,
      signingKey,
    });
  return (await readdir(runsDir)).filter((name) => name.endsWith(".json")).sort();
}

async function edit(name: string, from: string | RegExp, to: string): Promise<void> {
  const path = join(runsDir, name);
  const text = await readFile(path, "utf8");
  const edited = text.replace(from, to);
  expect(edited).not.toBe(text);
  await writeFile(path, edited);
}

/** Both passes refuse the chain, naming the same file. */
async function bothRefuse(): Promise<string> {
  const [links, full] = [await verifyChainLinks(runsDir), await verifyChain({ runsDir })];
  expect(full.ok).toBe(false);
  expect(links).toMatchObject({ ok: false, headFile: null, firstBad: { file: full.firstBad!.file } });
  return links.firstBad!.reason;
}

describe("verifyChainLinks", () => {
  it("accepts an intact chain with the full walk's head, plain or signed, and an empty one", async () => {
    expect(await verifyChainLinks(runsDir)).toMatchObject({ ok: true, records: 0, head: GENESIS_PREV_HASH });
    const names = await chain(4, parseSigningKey(generateSigningKey().privateKeyPem, "test"));
    const full = await verifyChain({ runsDir });
    const links = await verifyChainLinks(runsDir);
    expect(links).toMatchObject({ ok: true, records: 4, skipped: 0, head: full.head, headFile: names[3] });
    expect(links.hostFingerprint).toBe(HOST);
    expect(links).toMatchObject({ complete: full.complete, incomplete: full.incomplete });
  });

  it("catches a deleted and a renamed record, and a foreign file", async () => {
    const names = await chain(5);
    const second = await readFile(join(runsDir, names[1]!));
    await unlink(join(runsDir, names[1]!));
    expect(await bothRefuse()).toMatch(/prev_hash is not the previous record's chain_hash/);
    await writeFile(join(runsDir, names[1]!), second);
    await rename(join(runsDir, names[2]!), join(runsDir, "2026-10-01T00-00-00.000Z-000000000000.json"));
    expect(await bothRefuse()).toMatch(/file name disagrees/);
    await rename(join(runsDir, "2026-10-01T00-00-00.000Z-000000000000.json"), join(runsDir, names[2]!));
    await writeFile(join(runsDir, "notes.txt"), "x");
    expect(await bothRefuse()).toMatch(/not a chain record/);
  });

  it("catches an edited hash field in an older record and an edited report in the newest", async () => {
    const names = await chain(4);
    const original = await readFile(join(runsDir, names[1]!));
    await edit(names[1]!, /"content_hash":"blake3:[0-9a-f]{4}/, '"content_hash":"blake3:0000');
    expect(await bothRefuse()).toMatch(/report was edited|chain_hash does not match/);
    await writeFile(join(runsDir, names[1]!), original);
    await edit(names[3]!, '"mean_score":0.9', '"mean_score":1');
    expect(await bothRefuse()).toMatch(/report was edited/);
  });

  it("catches a truncated older record, and a wrong sequence", async () => {
    const names = await chain(3);
    const original = await readFile(join(runsDir, names[0]!));
    await writeFile(join(runsDir, names[0]!), original.subarray(0, 200));
    expect(await bothRefuse()).toMatch(/newline/);
    await writeFile(join(runsDir, names[0]!), original);
    await edit(names[1]!, '"sequence":1}', '"sequence":7}');
    expect(await bothRefuse()).toMatch(/sequence does not match/);
  });

  it("leaves an older report edited under intact hashes, or re-serialized, to the full walk, as a valid checkpoint does", async () => {
    const names = await chain(3);
    await edit(names[0]!, '"mean_score":0.9', '"mean_score":1');
    await edit(names[1]!, '{"chain_hash"', '{ "chain_hash"');
    expect((await verifyChainLinks(runsDir)).ok).toBe(true);
    expect(await verifyChain({ runsDir })).toMatchObject({ ok: false, firstBad: { file: names[0] } });
  });
});
