// Collecting the temporary files of replaces whose writer is gone: only those, only once a minute old, and
// nothing a symbolic link leads to. (gc-replace-temps.test.ts in the runner kills a real writer mid-write.)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeAbandonedReplaceTemps } from "./replace.ts";

const root = mkdtempSync(join(tmpdir(), "durable-fs-replace-temps-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const LATER = Date.now() + 120_000;

describe("removeAbandonedReplaceTemps", () => {
  it("removes a gone writer's temporary files at any depth once a minute old; keeps a live one's and every other file", () => {
    const state = join(root, "state");
    const outside = join(root, "outside");
    mkdirSync(join(state, "runs", "r1", "cases"), { recursive: true });
    mkdirSync(outside);
    // A real dead pid: a process that has exited.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    const gone = [
      join(state, `head.json.replacing-${dead}-1-0a1b2c3d`),
      join(state, "runs", "r1", "cases", `c.json.replacing-${dead}-7-ffffffff`),
    ];
    const kept = [
      join(state, `live.json.replacing-${process.pid}-1-0a1b2c3d`),
      join(state, "c.json"),
      join(state, `odd.replacing-${dead}-1-nothex00`),
      join(state, `odd.replacing-x-1-0a1b2c3d`),
    ];
    for (const path of [...gone, ...kept]) writeFileSync(path, "partial");
    mkdirSync(join(state, `dir.replacing-${dead}-1-0a1b2c3d`));
    writeFileSync(join(outside, `x.replacing-${dead}-1-0a1b2c3d`), "not under the root");
    symlinkSync(outside, join(state, "link"));

    expect(removeAbandonedReplaceTemps(state)).toEqual([]); // written just now
    expect(removeAbandonedReplaceTemps(state, LATER).sort()).toEqual(gone.sort());
    for (const path of gone) expect(existsSync(path)).toBe(false);
    for (const path of kept) expect(existsSync(path)).toBe(true);
    expect(existsSync(join(state, `dir.replacing-${dead}-1-0a1b2c3d`))).toBe(true);
    expect(readdirSync(outside)).toEqual([`x.replacing-${dead}-1-0a1b2c3d`]);
  });

  it("an absent root is nothing to do", () => {
    expect(removeAbandonedReplaceTemps(join(root, "missing"), LATER)).toEqual([]);
  });
});
