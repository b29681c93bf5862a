import { describe, expect, it } from "vitest";
import { errnoOf, EvalError, ioError, isOutOfSpace, isStorageFault } from "./index.ts";

const sys = (code: string, message = `${code}: something, write`) => Object.assign(new Error(message), { code });

describe("ioError", () => {
  it("one line per storage fault, naming the file, with what to do", () => {
    const cases: [string, RegExp, RegExp][] = [
      [
        "ENOSPC",
        /no space left on the device \(ENOSPC\)$/,
        /^free space on the file system of \/s\/runs .*then rerun$/,
      ],
      ["EDQUOT", /disk quota exceeded \(EDQUOT\)$/, /^free space in your quota on the file system of \/s\/runs/],
      ["EROFS", /read-only file system \(EROFS\)$/, /^remount \/s\/runs read-write/],
      ["EACCES", /permission denied \(EACCES\)$/, /^give this user write permission on \/s\/runs/],
      ["EPERM", /operation not permitted \(EPERM\)$/, /^give this user write permission on \/s\/runs/],
    ];
    for (const [code, message, hint] of cases) {
      const error = ioError(sys(code), "cannot write", "/s/runs/x.json");
      expect(error.code).toBe("EVAL_IO");
      expect(error.message).toMatch(/^cannot write \/s\/runs\/x\.json: /);
      expect(error.message).toMatch(message);
      expect(error.hint).toMatch(hint);
      expect(error.details).toEqual({ path: "/s/runs/x.json", errno: code });
      expect(isStorageFault(sys(code))).toBe(true);
    }
  });

  it("other errors keep their message and the generic hint; an EvalError passes through; no path says so", () => {
    const other = ioError(sys("ENOTDIR", "ENOTDIR: not a directory, open 'x'"), "cannot write", "x");
    expect(other.message).toBe("cannot write x: ENOTDIR: not a directory, open 'x'");
    expect(other.hint).toBeUndefined();
    expect(ioError("weird", "cannot write", "/a").message).toBe("cannot write /a: weird");
    const evalError = new EvalError("EVAL_USAGE", "x");
    expect(ioError(evalError, "cannot write", "/a")).toBe(evalError);
    const unnamed = ioError(sys("ENOSPC"), "a file operation failed", null);
    expect(unnamed.message).toBe("a file operation failed: no space left on the device (ENOSPC)");
    expect(unnamed.hint).toMatch(/file system of the state directory/);
    expect(ioError(sys("EROFS"), "cannot write", "top").hint).toMatch(/^remount \. read-write/);
    expect(ioError(sys("EROFS"), "cannot write", "/top").hint).toMatch(/^remount \/ read-write/);
  });

  it("errnoOf, isStorageFault and isOutOfSpace", () => {
    expect(errnoOf(sys("ENOSPC"))).toBe("ENOSPC");
    expect(errnoOf(new EvalError("EVAL_IO", "x"))).toBeNull();
    expect(errnoOf(null)).toBeNull();
    expect(isStorageFault(sys("ENOENT"))).toBe(false);
    expect(isOutOfSpace(sys("EDQUOT"))).toBe(true);
    expect(isOutOfSpace(ioError(sys("ENOSPC"), "cannot write", "/a"))).toBe(true);
    expect(isOutOfSpace(ioError(sys("EROFS"), "cannot write", "/a"))).toBe(false);
    expect(isOutOfSpace(new Error("x"))).toBe(false);
  });
});
