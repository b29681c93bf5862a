import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkStateDir, StateDirReadOnly } from "./check.ts";

// bubblewrap mounts a read-only view; without it (no user namespaces) that case is skipped.
const bwrapWorks = spawnSync("bwrap", ["--dev-bind", "/", "/", "true"]).status === 0;
const root = mkdtempSync(join(tmpdir(), "evalgate-state-dir-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("checkStateDir", () => {
  it("accepts an existing directory and a path that does not exist yet, creating nothing", () => {
    mkdirSync(join(root, "ok"));
    expect(checkStateDir(join(root, "ok"), { write: true })).toBe(join(root, "ok"));
    expect(checkStateDir(join(root, "new", "deeper"), { write: true })).toBe(join(root, "new", "deeper"));
    expect(checkStateDir(join(root, "new"), { write: false })).toBe(join(root, "new"));
    expect(spawnSync("test", ["-e", join(root, "new")]).status).toBe(1);
  });

  it("refuses a file, a path below a file, and a file where runs/ belongs, with EVAL_STATE_DIR_NOT_A_DIRECTORY", () => {
    writeFileSync(join(root, "afile"), "x");
    expect(() => checkStateDir(join(root, "afile"), { write: false })).toThrow(
      expect.objectContaining({
        code: "EVAL_STATE_DIR_NOT_A_DIRECTORY",
        message: `the state directory ${join(root, "afile")} cannot be used: it is not a directory`,
      }),
    );
    expect(() => checkStateDir(join(root, "afile", "state"), { write: true })).toThrow(
      new RegExp(`\\(${join(root, "afile")} is not a directory\\)`),
    );
    mkdirSync(join(root, "bad-runs"));
    writeFileSync(join(root, "bad-runs", "runs"), "x");
    expect(() => checkStateDir(join(root, "bad-runs"), { write: true })).toThrow(
      expect.objectContaining({ code: "EVAL_STATE_DIR_NOT_A_DIRECTORY" }),
    );
  });

  it.skipIf(!bwrapWorks)(
    "refuses at once a state directory on a read-only mount (EROFS), and a read-only runs/ inside a writable one",
    () => {
      const state = join(root, "ro");
      mkdirSync(join(state, "runs"), { recursive: true });
      const probe = (bindArgs: string[], target: string) =>
        spawnSync(
          "bwrap",
          [
            "--dev-bind",
            "/",
            "/",
            ...bindArgs,
            process.execPath,
            "--conditions=@eval/source",
            "--input-type=module",
            "-e",
            `import { checkStateDir } from ${JSON.stringify(join(import.meta.dirname, "check.ts"))};
         try { checkStateDir(${JSON.stringify(target)}, { write: true }); console.log("ok"); } catch (e) { console.log(e.code + " " + e.message); }`,
          ],
          { encoding: "utf8" },
        );
      const whole = probe(["--ro-bind", state, state], state);
      expect(whole.stdout.trim(), whole.stderr).toBe(
        `EVAL_STATE_DIR_READ_ONLY the state directory ${state} is not writable: ${state}: read-only file system (EROFS)`,
      );
      const runs = probe(["--ro-bind", join(state, "runs"), join(state, "runs")], state);
      expect(runs.stdout.trim(), runs.stderr).toBe(
        `EVAL_STATE_DIR_READ_ONLY the state directory ${state} is not writable: ${join(state, "runs")}: read-only file system (EROFS)`,
      );
      expect(probe([], state).stdout.trim()).toBe("ok");
    },
  );

  it("passes on a stat error other than a missing path (a symlink loop), and words a read-only mount and a permission apart", () => {
    symlinkSync(join(root, "loop"), join(root, "loop"));
    expect(() => checkStateDir(join(root, "loop"), { write: false })).toThrow(
      expect.objectContaining({ code: "ELOOP" }),
    );
    expect(new StateDirReadOnly("/s", "/s/runs", "EACCES").message).toBe(
      "the state directory /s is not writable: /s/runs: permission denied (EACCES)",
    );
    expect(new StateDirReadOnly("/s", "/s", "EROFS").details).toEqual({ stateDir: "/s", dir: "/s", errno: "EROFS" });
  });
});
