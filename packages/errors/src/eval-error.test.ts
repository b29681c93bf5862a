import { describe, expect, it } from "vitest";
import { ERROR_CODES, EvalError, isEvalError } from "./index.ts";

class BenchDirMissing extends EvalError {
  constructor(path: string) {
    super("EVAL_BENCH_DIR_MISSING", `bench directory ${path} does not exist`, {
      hint: "create it or pass --bench-root",
      details: { path },
    });
  }
}

describe("EvalError", () => {
  it("carries a stable code, a hint, frozen details and the subclass name", () => {
    const error = new BenchDirMissing("bench/x");
    expect(error.code).toBe("EVAL_BENCH_DIR_MISSING");
    expect(error.name).toBe("BenchDirMissing");
    expect(error.hint).toBe("create it or pass --bench-root");
    expect(error.details).toEqual({ path: "bench/x" });
    expect(Object.isFrozen(error.details)).toBe(true);
    expect(error).toBeInstanceOf(Error);
  });

  it("keeps the cause", () => {
    const cause = new Error("ENOENT");
    const error = new EvalError("EVAL_IO", "could not read x", { cause });
    expect(error.cause).toBe(cause);
    expect(error.hint).toBeUndefined();
  });

  it("recognises EvalErrors, also from another copy of the package, and nothing else", () => {
    expect(isEvalError(new EvalError("EVAL_USAGE", "bad flag"))).toBe(true);
    const foreign = Object.assign(new Error("x"), { code: "EVAL_CHAIN_TAMPERED" });
    expect(isEvalError(foreign)).toBe(true);
    expect(isEvalError(Object.assign(new Error("x"), { code: "ENOENT" }))).toBe(false);
    expect(isEvalError({ code: "EVAL_USAGE" })).toBe(false);
    expect(isEvalError(undefined)).toBe(false);
  });

  it("has unique codes, all EVAL_-prefixed", () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const code of ERROR_CODES) expect(code).toMatch(/^EVAL_[A-Z0-9_]+$/);
  });
});

describe("warnings", () => {
  it("the default sink drops warnings silently", async () => {
    const { ignoreWarnings } = await import("./index.ts");
    expect(ignoreWarnings({ code: "case.stale", message: "x" })).toBeUndefined();
  });
});
