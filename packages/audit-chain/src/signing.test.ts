// Signed records, attack first: an operator without the key cannot alter a signed record (even recomputing
// every hash with the project's own functions), re-append it elsewhere, or move its signature; with their own
// key they can sign anything, and the record then names their key (the verdict's trust list refuses it).
import { createPublicKey, generateKeyPairSync, verify as cryptoVerify } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  appendRunRecord,
  buildChainRecord,
  chainAnchor,
  readAnchor,
  writeAnchor,
  generateSigningKey,
  keyIdOf,
  loadSigningKey,
  preAuthEncoding,
  readChainHead,
  signatureFault,
  signDocument,
  verifyChain,
} from "./index.ts";
import { parseSigningKey, writeNewSigningKey } from "./signing.ts";
import type { SigningKey } from "./signing.ts";
import { HOST, makeReport, steppingClock } from "./__fixtures__/reports.ts";

let dir: string;
let runsDir: string;
let key: SigningKey;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "audit-sign-"));
  runsDir = join(dir, "runs");
  key = parseSigningKey(generateSigningKey().privateKeyPem, "test key");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function appendSigned(count: number, signingKey: SigningKey | null = key): Promise<string[]> {
  const clock = steppingClock();
  const paths: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const { head } = await readChainHead(runsDir);
    const { path } = await appendRunRecord(makeReport({ prev_hash: head, run_id: `run-${index}` }), {
      runsDir,
      hostFingerprint: HOST,
      now: clock,
      signingKey,
    });
    paths.push(path);
  }
  return paths;
}

/** The forger's move: rebuild the record from an altered report with the project's own function, at the same place. */
async function reforge(
  path: string,
  alter: (report: Record<string, unknown>) => Record<string, unknown>,
  signingKey: SigningKey | null,
) {
  const original = JSON.parse(await readFile(path, "utf8"));
  const report = alter({ ...original.report, chain_head: null });
  const built = await buildChainRecord(report as never, {
    prevHash: original.prev_hash,
    sequence: original.sequence,
    recordedAt: original.recorded_at,
    hostFingerprint: original.host_fingerprint,
    signingKey,
  });
  await rm(path);
  return { original, built };
}

describe("DSSE pre-authentication encoding", () => {
  it("matches the DSSE v1 specification's example byte for byte", () => {
    expect(preAuthEncoding("http://example.com/HelloWorld", Buffer.from("hello world")).toString()).toBe(
      "DSSEv1 29 http://example.com/HelloWorld 11 hello world",
    );
    // Lengths count bytes, not characters.
    expect(preAuthEncoding("t", Buffer.from("é")).toString()).toBe("DSSEv1 1 t 2 é");
  });
});

describe("signed records", () => {
  it("signs every record; the signature verifies with the public key alone (independent check over the PAE bytes)", async () => {
    const [path] = await appendSigned(1);
    const record = JSON.parse(await readFile(path!, "utf8"));
    expect(record.signature).toMatchObject({ algorithm: "ed25519", key_id: key.keyId, public_key: key.publicKey });
    expect(keyIdOf(record.signature.public_key)).toBe(key.keyId);
    const { report: _report, signature, ...fields } = record;
    const body = JSON.stringify(
      Object.fromEntries(
        Object.keys(fields)
          .sort()
          .map((k) => [k, fields[k]]),
      ),
    );
    const publicKey = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(signature.public_key, "base64").toString("base64url") },
      format: "jwk",
    });
    const pae = Buffer.from(
      `DSSEv1 ${"application/vnd.evalgate.chain-record+json".length} application/vnd.evalgate.chain-record+json ${Buffer.byteLength(body)} ${body}`,
    );
    expect(cryptoVerify(null, pae, publicKey, Buffer.from(signature.value, "base64"))).toBe(true);
    expect(await verifyChain({ runsDir, strict: true })).toMatchObject({ ok: true, records: 1 });
  });

  it("mixes with unsigned records in one chain (records made without a key)", async () => {
    await appendSigned(1);
    const { head } = await readChainHead(runsDir);
    await appendRunRecord(makeReport({ prev_hash: head, run_id: "unsigned" }), {
      runsDir,
      hostFingerprint: HOST,
      now: () => new Date("2030-01-01T00:00:00Z"),
    });
    expect(await verifyChain({ runsDir, strict: true })).toMatchObject({ ok: true, records: 2 });
  });

  it("ATTACK: a failing record rewritten to pass, every hash recomputed, the old signature kept: refused", async () => {
    const [path] = await appendSigned(1);
    const { original, built } = await reforge(path!, (report) => ({ ...report, mean_score: 0.99 }), null);
    await writeFile(
      join(runsDir, built.fileName),
      built.text.replace(/\n$/, "").replace(/}$/, `,"signature":${JSON.stringify(original.signature)}}\n`),
      { mode: 0o600 },
    );
    const result = await verifyChain({ runsDir });
    expect(result.ok).toBe(false);
    expect(result.firstBad).toMatchObject({
      file: built.fileName,
      reason: expect.stringContaining("the signature does not verify"),
    });
  });

  it("ATTACK: a signed record re-appended at another place (new prev_hash) with its old signature: refused", async () => {
    const paths = await appendSigned(2);
    const first = JSON.parse(await readFile(paths[0]!, "utf8"));
    const head = await readChainHead(runsDir);
    const built = await buildChainRecord(
      { ...first.report, chain_head: null, prev_hash: head.head },
      { prevHash: head.head, sequence: 2, recordedAt: "2030-01-01T00:00:00.000Z", hostFingerprint: HOST },
    );
    const text = `${built.text.slice(0, -2)},"signature":${JSON.stringify(first.signature)}}\n`;
    await writeFile(join(runsDir, built.fileName), text, { mode: 0o600 });
    const result = await verifyChain({ runsDir });
    expect(result.firstBad?.reason).toContain("the signature does not verify");
  });

  it("ATTACK: an altered record re-signed with the operator's own key verifies, but names that key (trust is the verdict's)", async () => {
    const [path] = await appendSigned(1);
    const forger = parseSigningKey(generateSigningKey().privateKeyPem, "forger");
    const { built } = await reforge(path!, (report) => ({ ...report, mean_score: 0.99 }), forger);
    await writeFile(join(runsDir, built.fileName), built.text, { mode: 0o600 });
    expect(await verifyChain({ runsDir })).toMatchObject({ ok: true });
    expect(built.record.signature?.key_id).toBe(forger.keyId);
    expect(built.record.signature?.key_id).not.toBe(key.keyId);
  });

  it("ATTACK: a signature whose key_id names a declared key but whose public key is the forger's: refused", async () => {
    const [path] = await appendSigned(1);
    const record = JSON.parse(await readFile(path!, "utf8"));
    const forger = parseSigningKey(generateSigningKey().privateKeyPem, "forger");
    const { report: _r, signature: _s, ...fields } = record;
    const forged = { ...signDocument(forger, "application/vnd.evalgate.chain-record+json", fields), key_id: key.keyId };
    await writeFile(path!, `${JSON.stringify({ ...record, signature: forged })}\n`, { mode: 0o600 });
    expect((await verifyChain({ runsDir })).firstBad?.reason).toContain("key_id is not the hash of its public key");
  });

  it("refuses a malformed signature, and one whose public key is not a curve point", async () => {
    const [path] = await appendSigned(1);
    const record = JSON.parse(await readFile(path!, "utf8"));
    await writeFile(path!, `${JSON.stringify({ ...record, signature: { ...record.signature, algorithm: "rsa" } })}\n`, {
      mode: 0o600,
    });
    expect((await verifyChain({ runsDir })).firstBad?.reason).toBe("the record's signature is malformed");
    const bogus = Buffer.alloc(32, 0xff).toString("base64");
    expect(signatureFault({ ...record.signature, public_key: bogus, key_id: keyIdOf(bogus) }, "t", {})).toMatch(
      /not an Ed25519 key|does not verify/,
    );
  });

  it("a signature made for one document type does not verify as another", () => {
    const signature = signDocument(key, "application/vnd.evalgate.chain-anchor+json", { a: 1 });
    expect(signatureFault(signature, "application/vnd.evalgate.chain-anchor+json", { a: 1 })).toBeNull();
    expect(signatureFault(signature, "application/vnd.evalgate.chain-record+json", { a: 1 })).toContain(
      "does not verify",
    );
  });
});

describe("writeNewSigningKey", () => {
  it("writes a new 0600 PEM whose key loads back, never overwrites one, and names an unwritable place", async () => {
    const file = join(dir, "new.pem");
    const { keyId, publicKey } = await writeNewSigningKey(file);
    expect(await loadSigningKey({ path: file })).toMatchObject({ keyId, publicKey });
    expect((await import("node:fs")).statSync(file).mode & 0o777).toBe(0o600);
    await expect(writeNewSigningKey(file)).rejects.toMatchObject({
      code: "EVAL_USAGE",
      message: expect.stringContaining("a key is never overwritten"),
    });
    await expect(writeNewSigningKey(join(dir, "missing", "k.pem"))).rejects.toMatchObject({
      code: "EVAL_IO",
      message: expect.stringContaining("ENOENT"),
    });
  });
});

describe("loadSigningKey", () => {
  it("reads a PEM file or PEM text, the file first; neither gives null", async () => {
    const generated = generateSigningKey();
    const file = join(dir, "key.pem");
    await writeFile(file, generated.privateKeyPem, { mode: 0o600 });
    expect((await loadSigningKey({ path: file }))?.keyId).toBe(generated.keyId);
    expect((await loadSigningKey({ pem: generated.privateKeyPem }))?.publicKey).toBe(generated.publicKey);
    expect(await loadSigningKey({ pem: "  " })).toBeNull();
    expect(await loadSigningKey({})).toBeNull();
  });

  it("refuses a key inside the state directory, an unreadable file, a non-key and a non-Ed25519 key, each in one line", async () => {
    const stateDir = join(dir, ".evalgate");
    await mkdir(stateDir);
    const inside = join(stateDir, "key.pem");
    await writeFile(inside, generateSigningKey().privateKeyPem);
    await expect(loadSigningKey({ path: inside, stateDir })).rejects.toMatchObject({
      code: "EVAL_USAGE",
      message: expect.stringContaining("inside the state directory"),
    });
    // ATTACK: a name that starts with two dots is still inside (a prefix test on the relative path let it through).
    const dotted = join(stateDir, "..key.pem");
    await writeFile(dotted, generateSigningKey().privateKeyPem, { mode: 0o600 });
    await expect(loadSigningKey({ path: dotted, stateDir })).rejects.toMatchObject({
      code: "EVAL_USAGE",
      message: expect.stringContaining("inside the state directory"),
    });
    await expect(loadSigningKey({ path: join(dir, "missing.pem") })).rejects.toMatchObject({
      code: "EVAL_USAGE",
      message: expect.stringContaining("ENOENT"),
    });
    await expect(loadSigningKey({ pem: "not a key" })).rejects.toMatchObject({
      code: "EVAL_USAGE",
      message: expect.stringContaining("EVALGATE_SIGNING_KEY is not a PEM private key"),
    });
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    const rsaFile = join(dir, "rsa.pem");
    await writeFile(rsaFile, rsa);
    await chmod(rsaFile, 0o600);
    await expect(loadSigningKey({ path: rsaFile, stateDir })).rejects.toMatchObject({
      message: expect.stringContaining("is a rsa key, not Ed25519"),
    });
    expect((await readdir(stateDir)).sort()).toEqual(["..key.pem", "key.pem"]);
  });
});

describe("signed anchors", () => {
  it("signs an anchor when a key is given; reading one whose fields were moved under the old signature is EVAL_CHAIN_TAMPERED", async () => {
    await appendSigned(2);
    const file = join(dir, "anchor.json");
    const anchor = (await chainAnchor(runsDir, key))!;
    expect(anchor.signature?.key_id).toBe(key.keyId);
    await writeAnchor(file, anchor);
    expect(await readAnchor(file)).toEqual(anchor);
    expect((await chainAnchor(runsDir))!.signature).toBeUndefined();
    await writeFile(file, JSON.stringify({ ...anchor, records: 1 }));
    await expect(readAnchor(file)).rejects.toMatchObject({
      code: "EVAL_CHAIN_TAMPERED",
      message: expect.stringContaining("the signature does not verify"),
    });
  });
});
