import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { currentOwner, ownerState, parseOwner } from "./owner.ts";

describe("process owners", () => {
  it("this process is live; a reused pid (another start time), a gone pid and another host are told apart", () => {
    const me = currentOwner();
    expect(me).toMatchObject({ pid: process.pid, host: hostname() });
    expect(ownerState(me)).toBe("live");
    expect(ownerState({ ...me, proc_start: "1" })).toBe("dead");
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid!;
    expect(ownerState({ ...me, pid: gone })).toBe("dead");
    expect(ownerState({ ...me, host: "elsewhere.example" })).toBe("foreign");
    // No start time recorded (no /proc where it was written): the pid alone decides.
    expect(ownerState({ ...me, proc_start: null })).toBe("live");
  });

  it("parses an owner's JSON and refuses what is not one", () => {
    expect(parseOwner(JSON.stringify(currentOwner()))).toEqual(
      currentOwner() && expect.objectContaining({ pid: process.pid }),
    );
    expect(parseOwner(JSON.stringify({ pid: 7, host: "h" }))).toEqual({
      pid: 7,
      host: "h",
      started_at: "",
      proc_start: null,
    });
    for (const text of ["", "{", "null", "3", '{"pid":0,"host":"h"}', '{"pid":1.5,"host":"h"}', '{"pid":7}'])
      expect(parseOwner(text)).toBeNull();
  });
});
