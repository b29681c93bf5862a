import { rmSync } from "node:fs";
import { join } from "node:path";
import { copyGoldenState, GOLDEN_CHAIN_HEAD, goldenRuns } from "@eval/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { chainHashOf, contentHashOfReport } from "./hashing.ts";
import { verifyChain } from "./verify.ts";

// A chain written by evalgate before its hashing moved into @eval/hashing: verifying it, and
// recomputing each record's hashes, pins the record serialization byte for byte.
describe("a chain written before the hashing change", () => {
  let stateDir: string | undefined;
  afterEach(() => {
    if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
  });

  it("verifies, with the head it had when it was written", async () => {
    stateDir = copyGoldenState();
    const result = await verifyChain({ runsDir: join(stateDir, "runs") });
    expect(result).toMatchObject({
      ok: true,
      records: 3,
      complete: 3,
      incomplete: 0,
      head: GOLDEN_CHAIN_HEAD,
      firstBad: null,
    });
  });

  it("recomputes every record's content hash and chain hash exactly", async () => {
    const runs = goldenRuns();
    expect(runs).toHaveLength(3);
    for (const { record } of runs) {
      expect(await contentHashOfReport(record.report)).toBe(record.content_hash);
      expect(chainHashOf(record.prev_hash, record.content_hash)).toBe(record.chain_hash);
    }
  });
});
