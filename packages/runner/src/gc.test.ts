import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectGarbage } from "./gc.ts";
import { markRecorded } from "./run-owner.ts";
import { createRunTempRoot, removeAbandonedRunTemps } from "./run-temp.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "evalgate-gc-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("collectGarbage", () => {
  it("removes a killed run's temp dir and unchained detail dir, keeps a live run's temp dir", async () => {
    const temps = join(root, "tmp");
    mkdirSync(temps);
    // A run whose process is gone: its owner pid is a process that has exited.
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
    const killed = createRunTempRoot("20261122T000000Z-dead", temps);
    writeFileSync(join(killed.path, "owner.pid"), String(dead));
    mkdirSync(join(killed.path, "ws-1"));
    const live = createRunTempRoot("20261122T000000Z-live", temps);
    const stateDir = join(root, "state");
    mkdirSync(join(stateDir, "runs", "20261122T000000Z-dead", "cases"), { recursive: true });
    const result = await collectGarbage({ stateDir, tempParent: temps });
    expect(result.removedTempDirs).toEqual([killed.path]);
    expect(existsSync(live.path)).toBe(true);
    expect(result.removedDetailDirs).toEqual([join(stateDir, "runs", "20261122T000000Z-dead")]);
    expect(result).toMatchObject({ removedCacheEntries: 0, removedCacheTempFiles: 0 });
    live.remove();
    expect(existsSync(live.path)).toBe(false);
  });

  it("ATTACK: keeps and reports the details of a run that was recorded and then deleted from the chain (truncation)", async () => {
    const stateDir = join(root, "truncated");
    const truncated = join(stateDir, "runs", "20261122T000000Z-failing");
    mkdirSync(join(truncated, "cases"), { recursive: true });
    markRecorded(truncated, `sha256:${"1".repeat(64)}`);
    mkdirSync(join(stateDir, "runs", "20261122T000000Z-killed"), { recursive: true });
    const warnings: { code: string; message: string }[] = [];
    const result = await collectGarbage({
      stateDir,
      tempParent: join(root, "tmp"),
      onWarning: (warning) => warnings.push(warning),
    });
    expect(result.keptRemovedRunDirs).toEqual([truncated]);
    expect(result.removedDetailDirs).toEqual([join(stateDir, "runs", "20261122T000000Z-killed")]);
    expect(existsSync(join(truncated, "cases"))).toBe(true);
    expect(warnings).toEqual([
      expect.objectContaining({
        code: "gc.possible_truncation",
        message: expect.stringContaining(
          "1 detail directory belongs to runs that were recorded but are no longer in the chain",
        ),
      }),
    ]);
  });

  it("judges a temp dir without an owner by its age", () => {
    const temps = join(root, "tmp-age");
    mkdirSync(join(temps, "evalgate-run-x-abc"), { recursive: true });
    expect(removeAbandonedRunTemps({ parent: temps })).toEqual([]);
    expect(removeAbandonedRunTemps({ parent: temps, now: Date.now() + 2 * 60 * 60 * 1000 })).toEqual([
      join(temps, "evalgate-run-x-abc"),
    ]);
  });
});
