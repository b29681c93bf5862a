// A third-party task class outside the workspace: a scratch project that declares only the packed
// @eval/rubric-protocol tarball (its own dependency @eval/models is unpublished here, so npm's
// `overrides` points it at that package's tarball, as a registry would serve it), a rubric written
// against the documented idiom, run as the harness runs it: a subprocess, JSON on stdin and stdout.
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VALID_REQUEST } from "./valid-request.test-helpers.ts";

const run = promisify(execFile);
const packagesDir = join(import.meta.dirname, "..", "..");

describe("a task class outside the workspace, with only the packed @eval/rubric-protocol", () => {
  let scratch: string;
  let project: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), "evalgate-rubric-packed-"));
    const tarballs: Record<string, string> = {};
    for (const name of ["rubric-protocol", "models"]) {
      const { stdout } = await run("pnpm", ["pack", "--pack-destination", scratch, "--json"], {
        cwd: join(packagesDir, name),
      });
      tarballs[name] = (JSON.parse(stdout) as { filename: string }).filename;
    }
    project = join(scratch, "third-party-task-class");
    mkdirSync(project);
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "third-party-task-class",
        private: true,
        type: "module",
        dependencies: { "@eval/rubric-protocol": `file:${tarballs["rubric-protocol"]}` },
        overrides: { "@eval/models": `file:${tarballs.models}` },
      }),
    );
    writeFileSync(
      join(project, "rubric.ts"),
      [
        'import { runRubric, type Rubric } from "@eval/rubric-protocol";',
        "const rubric: Rubric = {",
        "  score(benchCase, harnessOutput) {",
        '    const passed = harnessOutput.answer === "HELLO";',
        "    return { passed, score: passed ? 1 : 0, breakdown: { exact: passed ? 1 : 0 }, failure_modes: [], cost_usd: 0, wall_clock_ms: 0 };",
        "  },",
        "};",
        "if (import.meta.main) await runRubric(rubric);",
        "export default rubric;",
        "",
      ].join("\n"),
    );
    await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--ignore-scripts"], { cwd: project });
  }, 240_000);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("installs nothing of evalgate but the protocol and its wire types", () => {
    const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
      packages: Record<string, unknown>;
    };
    const installed = Object.keys(lock.packages)
      .filter((path) => path !== "")
      .map((path) => path.replace(/^node_modules\//, ""));
    expect(installed.filter((name) => name.startsWith("@eval/")).sort()).toEqual([
      "@eval/models",
      "@eval/rubric-protocol",
    ]);
  });

  it("scores one request from stdin as a subprocess: one response line, exit 0", () => {
    const result = spawnSync(process.execPath, ["rubric.ts"], {
      cwd: project,
      input: JSON.stringify(VALID_REQUEST),
      encoding: "utf8",
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      schema_version: "evalgate.rubric_response.v1",
      score: { passed: true, score: 1, breakdown: { exact: 1 }, failure_modes: [], cost_usd: 0, wall_clock_ms: 0 },
    });
  });

  it("loads only the rubric, the package's index and its one runtime module: no zod, no @eval/models, no builtin namespaces", () => {
    writeFileSync(
      join(project, "record-loads.mjs"),
      [
        'import { registerHooks } from "node:module";',
        "const loaded = [];",
        "registerHooks({ resolve(specifier, context, nextResolve) { const result = nextResolve(specifier, context); loaded.push(result.url); return result; } });",
        'process.on("exit", () => process.stderr.write(JSON.stringify(loaded)));',
        "",
      ].join("\n"),
    );
    const result = spawnSync(process.execPath, ["--import", "./record-loads.mjs", "rubric.ts"], {
      cwd: project,
      input: JSON.stringify(VALID_REQUEST),
      encoding: "utf8",
    });
    expect(result.status).toBe(0);
    const loaded = (JSON.parse(result.stderr) as string[]).map((url) =>
      url.replace(/^file:\/\/.*?\/third-party-task-class\//, ""),
    );
    expect(loaded).toEqual([
      "rubric.ts",
      "node_modules/@eval/rubric-protocol/dist/index.js",
      "node_modules/@eval/rubric-protocol/dist/runtime.js",
    ]);
  });

  it("exits non-zero with exactly one stderr line on bad input", () => {
    const result = spawnSync(process.execPath, ["rubric.ts"], {
      cwd: project,
      input: '{"schema_version": "x"}',
      encoding: "utf8",
    });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^rubric: invalid request: /);
  });

  it("can be imported in-process without running (the import.meta.main idiom)", async () => {
    const { stdout } = await run(
      process.execPath,
      ["--input-type=module", "-e", 'const m = await import("./rubric.ts"); console.log(typeof m.default.score);'],
      { cwd: project },
    );
    expect(stdout.trim()).toBe("function");
  });
});
