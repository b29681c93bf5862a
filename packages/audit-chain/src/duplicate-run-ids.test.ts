// A run appended twice (a retried CI job, a merge that raced another) is a chain that links: `verify`
// must still say so, as a failure under strict and as a list otherwise.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GENESIS_PREV_HASH } from "@eval/models";
import { appendRunRecord, verifyChain } from "./index.ts";
import { HOST, makeReport, steppingClock } from "./__fixtures__/reports.ts";

let runsDir: string;
beforeEach(async () => {
  runsDir = join(await mkdtemp(join(tmpdir(), "evalgate-dup-")), "runs");
});
afterEach(async () => {
  await rm(join(runsDir, ".."), { recursive: true, force: true });
});

describe("duplicate run ids", () => {
  it("are listed by verify, and are a fault naming the second record under strict", async () => {
    const clock = steppingClock();
    for (const runId of ["run-a", "run-b", "run-a"])
      await appendRunRecord(makeReport({ prev_hash: GENESIS_PREV_HASH, run_id: runId }), {
        runsDir,
        hostFingerprint: HOST,
        now: clock,
      });
    const loose = await verifyChain({ runsDir });
    expect(loose.ok).toBe(true);
    expect(loose.duplicateRunIds).toEqual(["run-a"]);
    const strict = await verifyChain({ runsDir, strict: true });
    expect(strict.ok).toBe(false);
    expect(strict.firstBad?.reason).toMatch(/run run-a is recorded a second time/);
  });

  it("a chain without duplicates lists none", async () => {
    const clock = steppingClock();
    for (const runId of ["run-a", "run-b"])
      await appendRunRecord(makeReport({ prev_hash: GENESIS_PREV_HASH, run_id: runId }), {
        runsDir,
        hostFingerprint: HOST,
        now: clock,
      });
    expect(await verifyChain({ runsDir, strict: true })).toMatchObject({ ok: true });
    expect((await verifyChain({ runsDir })).duplicateRunIds ?? []).toEqual([]);
  });
});
