import { describe, expect, it } from "vitest";
import fc from "fast-check";
import canonicalize from "canonicalize";
import { blake3 } from "@noble/hashes/blake3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { GENESIS_PREV_HASH } from "@eval/models";
import { buildChainRecord } from "./append.ts";
import { checkRecordFile } from "./record-file.ts";
import { HOST, makeReport } from "./__fixtures__/reports.ts";

const placement = {
  prevHash: GENESIS_PREV_HASH,
  sequence: 0,
  recordedAt: "2026-11-01T00:00:00.000Z",
  hostFingerprint: HOST,
};
const breakdownKey = fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 999 }).map(String));

describe("checkRecordFile", () => {
  it("accepts exactly what buildChainRecord writes, whatever the text and keys (fast path and library path agree)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.dictionary(breakdownKey, fc.double({ noNaN: true, noDefaultInfinity: true })),
        async (label, breakdown) => {
          const base = makeReport({ prev_hash: GENESIS_PREV_HASH, sut_label: label });
          const report = {
            ...base,
            per_case: base.per_case.map((entry) => ({ ...entry, score: { ...entry.score, breakdown } })),
          };
          const built = await buildChainRecord(report, placement);
          const check = checkRecordFile(built.fileName, Buffer.from(built.text), true);
          expect(check.ok).toBe(true);
          // The content hash is BLAKE3 (by an independent implementation) of RFC 8785 JSON of the report with a null head.
          const expected = `blake3:${bytesToHex(blake3(Buffer.from(canonicalize({ ...built.record.report, chain_head: null })!)))}`;
          expect(built.record.content_hash).toBe(expected);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("names each kind of malformed record", async () => {
    const built = await buildChainRecord(makeReport({ prev_hash: GENESIS_PREV_HASH }), placement);
    const record = JSON.parse(built.text) as Record<string, unknown>;
    const check = (value: unknown, name = built.fileName) => {
      const result = checkRecordFile(
        name,
        Buffer.from(`${typeof value === "string" ? value : canonicalize(value)}\n`),
        false,
      );
      return result.ok ? "ok" : result.fault.reason;
    };
    expect(check(built.text.trimEnd())).toBe("ok");
    expect(checkRecordFile(built.fileName, Buffer.from(built.text.trimEnd()), false)).toMatchObject({ ok: false });
    expect(check("[1]")).toMatch(/not a chain record/);
    expect(check({ ...record, extra: 1 })).toMatch(/fields are wrong/);
    expect(check({ ...record, schema_version: "v0" })).toMatch(/schema_version/);
    expect(check({ ...record, sequence: -1 })).toMatch(/sequence/);
    expect(check({ ...record, prev_hash: "x" })).toMatch(/prev_hash is malformed/);
    expect(check({ ...record, chain_hash: "x" })).toMatch(/chain_hash is malformed/);
    expect(check({ ...record, content_hash: "x" })).toMatch(/content_hash is malformed/);
    expect(check({ ...record, recorded_at: "2026-11-01" })).toMatch(/recorded_at/);
    expect(check({ ...record, host_fingerprint: "me" })).toMatch(/host_fingerprint is malformed/);
    expect(check({ ...record, report: [] })).toMatch(/report is not an object/);
    const report = record.report as Record<string, unknown>;
    expect(check({ ...record, report: { ...report, chain_head: GENESIS_PREV_HASH } })).toMatch(
      /edited|chain_head disagrees/,
    );
    expect(check({ ...record, report: { ...report, prev_hash: `sha256:${"1".repeat(64)}` } })).toMatch(/edited/);
    expect(check(JSON.stringify(record, null, 1))).toMatch(/not the canonical/);
    const invalidUtf8 = Buffer.from(built.text.replace("touched", "touch\u00e9d"));
    const at = invalidUtf8.indexOf(0xc3);
    invalidUtf8[at] = 0xff;
    expect(checkRecordFile(built.fileName, invalidUtf8, false)).toMatchObject({ ok: false });
  });
});
