import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ERROR_CODES, EvalError } from "@eval/errors";
import { describe, expect, it } from "vitest";
import { ERROR_PRESENTATION, ExitCode } from "./exit-codes.ts";
import { renderError } from "./render-error.ts";
import { invoke } from "./test-helpers.ts";
import { HARNESS_VERSION } from "./version.ts";

describe("evalgate", () => {
  it("prints help on stdout and exits 0", async () => {
    const result = await invoke(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("evalgate schemas");
  });

  it("reports its version, which matches package.json", async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(HARNESS_VERSION).toBe(pkg.version);
    expect((await invoke(["--version"])).stdout.trim()).toBe(pkg.version);
  });

  it("sends usage errors to stderr with exit 1 and nothing on stdout", async () => {
    const result = await invoke(["schemas", "--nope"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("`evalgate schemas`: unknown option --nope (EVAL_USAGE)");
  });

  it("lists wire types and prints one JSON Schema", async () => {
    const list = await invoke(["schemas"]);
    expect(list.stdout.split("\n")).toContain("rubric-response");
    const one = await invoke(["schemas", "rubric-response"]);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ $id: "urn:evalgate:schema:rubric-response" });
  });

  it("turns a user error into one line with a hint and no stack", async () => {
    const result = await invoke(["schemas", "nope"]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^evalgate: no wire type named "nope" \(EVAL_USAGE\); choose one of: /);
  });

  it("adds the stack under --debug", async () => {
    const result = await invoke(["schemas", "nope", "--debug"]);
    expect(result.stderr.split("\n").length).toBeGreaterThan(3);
    expect(result.stderr).toContain("    at ");
  });
});

describe("error presentation", () => {
  it("gives every error code an exit code from the partition and a hint", () => {
    expect(Object.keys(ERROR_PRESENTATION).sort()).toEqual([...ERROR_CODES].sort());
    for (const presentation of Object.values(ERROR_PRESENTATION)) {
      expect(Object.values(ExitCode)).toContain(presentation.exitCode);
      expect(presentation.hint.length).toBeGreaterThan(10);
    }
  });

  it.each([
    ["EVAL_COST_CAP_EXCEEDED", 2],
    ["EVAL_TASK_CLASS_NOT_FOUND", 3],
    ["EVAL_BENCH_DIR_MISSING", 4],
    ["EVAL_CHAIN_TAMPERED", 5],
    ["EVAL_CASE_DIGEST_MISMATCH", 6],
    ["EVAL_CASE_LOAD_FAILED", 1],
  ] as const)("maps %s to exit %i", (code, exitCode) => {
    expect(renderError(new EvalError(code, "x"), false).exitCode).toBe(exitCode);
  });

  it("prefers the error's own hint", () => {
    expect(renderError(new EvalError("EVAL_IO", "cannot write x", { hint: "free some disk" }), false).text).toBe(
      "evalgate: cannot write x (EVAL_IO); free some disk\n",
    );
  });

  it("treats unknown errors as internal: exit 1, first line only, pointing at --debug", () => {
    const rendered = renderError(new TypeError("x is undefined\nmore"), false);
    expect(rendered).toEqual({
      exitCode: 1,
      text: "evalgate: internal error: TypeError: x is undefined; rerun with --debug for the stack and report it\n",
    });
    expect(renderError("boom", false).text).toContain("internal error: boom");
  });

  it("a storage fault that escaped a library unnamed is one EVAL_IO line, never an internal error", () => {
    const withPath = Object.assign(new Error("EROFS: read-only file system, open '/s/x'"), {
      code: "EROFS",
      path: "/s/x",
    });
    expect(renderError(withPath, false)).toEqual({
      exitCode: 1,
      text: "evalgate: cannot use /s/x: read-only file system (EROFS) (EVAL_IO); remount /s read-write, or point --out (or EVALGATE_STATE_DIR) at a writable directory\n",
    });
    const unnamed = renderError(
      Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }),
      false,
    );
    expect(unnamed.text).toMatch(
      /^evalgate: a file operation failed: no space left on the device \(ENOSPC\) \(EVAL_IO\); free space on the file system of the state directory/,
    );
  });
});
