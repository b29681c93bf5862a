// Against the BUILT binary, on a real small tmpfs: a disk that is full before a run, one that fills
// during it, a read-only state directory and one this user may not write. Each gives one line naming
// the file (never "internal error", never a stack), a documented exit code, no half-written file, and a
// run that started is recorded.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { mountTmpfs } from "@eval/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeUpperBench } from "./commands/run.test-helpers.ts";

const bin = join(import.meta.dirname, "..", "dist", "bin.js");
const fs = mountTmpfs(4096);
let bench: Awaited<ReturnType<typeof makeUpperBench>>;

beforeAll(async () => {
  bench = await makeUpperBench({
    "c-1": "one",
    "c-2": "two",
    "c-3": "three",
    "c-4": "four",
    "c-5": "five",
    "c-6": "six",
  });
  // Upper-cases, and on c-3 fills the disk that holds the state directory (as another job on the machine would).
  writeFileSync(
    join(bench.root, "fill.mjs"),
    `import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
     export async function upper(invocation) {
       const path = invocation.workspacePath + "/text.txt";
       writeFileSync(path, readFileSync(path, "utf8").toUpperCase());
       if (invocation.benchCase.case_id === "c-3") {
         const chunk = Buffer.alloc(4096, 120);
         try { for (;;) appendFileSync(process.env.FILL_FILE, chunk); } catch {}
       }
       return { cost_usd: 0 };
     }`,
  );
}, 60_000);
afterAll(async () => {
  if (!("skip" in fs)) fs.unmount();
  await rm(bench.root, { recursive: true, force: true });
});

function cli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; asUser?: number } = {}) {
  const argv = [bin, ...args];
  const command =
    options.asUser === undefined
      ? ([process.execPath, argv] as const)
      : ([
          "setpriv",
          [
            "--reuid",
            String(options.asUser),
            "--regid",
            String(options.asUser),
            "--clear-groups",
            process.execPath,
            ...argv,
          ],
        ] as const);
  const result = spawnSync(command[0], command[1], {
    cwd: bench.root,
    env: { PATH: process.env.PATH, ...options.env },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
const run = (state: string, extra: readonly string[] = [], env: NodeJS.ProcessEnv = {}) =>
  cli(
    [
      "run",
      "--task-class",
      "upper",
      "--sut",
      "module:fill.mjs#upper",
      "--bench-root",
      bench.benchRoot,
      "--sandbox",
      "none",
      "--quiet",
      "--out",
      state,
      "--concurrency",
      "1",
      ...extra,
    ],
    { env },
  );

/** The last stderr line that is not a JSON warning: evalgate's one line. */
const errorLine = (stderr: string) =>
  stderr
    .trim()
    .split("\n")
    .filter((line) => !line.startsWith("{"))
    .at(-1) ?? "";
const records = (state: string) =>
  existsSync(join(state, "runs")) ? readdirSync(join(state, "runs")).filter((name) => name.endsWith(".json")) : [];

/** Every file below `dir`: none a temp file, every JSON file whole, every cache entry verifies. */
function assertNothingHalfWritten(dir: string): void {
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    expect(path).not.toMatch(/\.tmp|\/\.tmp-|\.record-reserve$|\/claim-/);
    if (entry.name.endsWith(".json") && !path.startsWith(join(dir, "cache")))
      expect(() => JSON.parse(readFileSync(path, "utf8")), path).not.toThrow();
  }
  const stats = JSON.parse(cli(["cache", "stats", "--out", dir]).stdout) as { unverified: number };
  expect(stats.unverified).toBe(0);
}

describe.skipIf("skip" in fs)(`storage faults on a real tmpfs${"skip" in fs ? ` (skipped: ${fs.skip})` : ""}`, () => {
  it("a disk that fills during the run: exit 1, one line naming the file, the run recorded as incomplete, nothing half-written", () => {
    if ("skip" in fs) return;
    const state = join(fs.path, "state-fills");
    let result: ReturnType<typeof run>;
    try {
      result = run(state, [], { FILL_FILE: join(fs.path, ".filler") });
    } finally {
      fs.free();
    }
    const line = errorLine(result.stderr);
    expect(result.code, result.stderr).toBe(1);
    expect(line).toMatch(
      new RegExp(
        `^evalgate: .*cannot write ${state}/\\S+: no space left on the device \\(ENOSPC\\): [0-5] of 6 cases finished, recorded as incomplete run partial:`,
      ),
    );
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(records(state)).toHaveLength(1);
    const verify = JSON.parse(cli(["verify", "--strict", "--out", state]).stdout) as {
      ok: boolean;
      records: number;
      incomplete: number;
    };
    expect(verify).toMatchObject({ ok: true, records: 1, incomplete: 1 });
    assertNothingHalfWritten(state);
    // Space again: the rerun completes, reusing the finished cases.
    const rerun = run(state);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(records(state)).toHaveLength(2);
  }, 240_000);

  it("a disk already full: refused before anything runs, one line with what to do, nothing left behind", () => {
    if ("skip" in fs) return;
    const state = join(fs.path, "state-full");
    expect(run(state).code).toBe(0); // a chain to protect
    fs.fill(0);
    try {
      const result = run(state, ["--no-cache"]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(errorLine(result.stderr)).toMatch(
        /^evalgate: cannot .*: no space left on the device \(ENOSPC\) \(EVAL_IO\); free space on the file system of .*then rerun$/,
      );
      expect(records(state)).toHaveLength(1);
      assertNothingHalfWritten(state);
      expect(readdirSync(join(state, "runs")).filter((name) => /^\d{8}T/.test(name))).toHaveLength(1);
    } finally {
      fs.free();
    }
  }, 240_000);

  it("a read-only state directory: one line saying so (EROFS), for run, plan --output and bench sign", () => {
    if ("skip" in fs) return;
    const state = join(fs.path, "state-ro");
    expect(run(state).code).toBe(0);
    mkdirSync(join(fs.path, "out"));
    fs.readOnly(true);
    try {
      const runResult = run(state);
      expect(runResult.code).toBe(1);
      expect(errorLine(runResult.stderr)).toMatch(/read-only file system \(EROFS\)/);
      const plan = cli([
        "plan",
        "--task-class",
        "upper",
        "--sut",
        "module:fill.mjs#upper",
        "--bench-root",
        bench.benchRoot,
        "--sandbox",
        "none",
        "--output",
        join(fs.path, "out", "plan.json"),
      ]);
      expect(plan.code).toBe(1);
      expect(errorLine(plan.stderr)).toBe(
        `evalgate: cannot write ${join(fs.path, "out", "plan.json")}: read-only file system (EROFS) (EVAL_IO); remount ${join(fs.path, "out")} read-write, or point --out (or EVALGATE_STATE_DIR) at a writable directory`,
      );
      expect(records(state)).toHaveLength(1);
    } finally {
      fs.readOnly(false);
    }
    // bench sign on a read-only bench: a copy of the bench on the tmpfs, with a case changed.
    const copy = join(fs.path, "repo-copy");
    execFileSync("cp", ["-R", bench.root, copy]);
    writeFileSync(join(copy, "bench", "upper", "cases", "c-1", "input", "text.txt"), "changed");
    fs.readOnly(true);
    try {
      const sign = cli(["bench", "sign", "--task-class", "upper", "--bench-root", join(copy, "bench")]);
      expect(sign.code).toBe(1);
      expect(errorLine(sign.stderr)).toMatch(
        /^evalgate: cannot write .*digests\.yaml: read-only file system \(EROFS\) \(EVAL_IO\)/,
      );
    } finally {
      fs.readOnly(false);
    }
  }, 240_000);

  it("a directory this user may not write (a scratch uid; root bypasses modes): one line saying so (EACCES)", () => {
    if ("skip" in fs) return;
    chmodSync(bench.root, 0o755); // the scratch user reads the bench and the SUT
    const out = join(fs.path, "locked");
    mkdirSync(out, { mode: 0o555 });
    chmodSync(out, 0o555);
    expect(statSync(out).mode & 0o777).toBe(0o555);
    const plan = cli(
      [
        "plan",
        "--task-class",
        "upper",
        "--sut",
        "module:fill.mjs#upper",
        "--bench-root",
        bench.benchRoot,
        "--sandbox",
        "none",
        "--output",
        join(out, "plan.json"),
      ],
      { asUser: 65534 },
    );
    expect(plan.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(errorLine(plan.stderr)).toBe(
      `evalgate: cannot write ${join(out, "plan.json")}: permission denied (EACCES) (EVAL_IO); give this user write permission on ${out}, or point --out (or EVALGATE_STATE_DIR) at a directory it owns`,
    );
    expect(plan.code).toBe(1);
  }, 240_000);
});
