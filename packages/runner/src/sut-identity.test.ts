// The SUT's identity covers what it runs: a command SUT that changes behaviour without changing its argv or
// the files argv names (a module its script imports; a large script rewritten with its mtime restored) gets
// another sut_digest and no cached score. Each attack was given cached passes by the code before.
import { chmodSync, mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSupport } from "@eval/sandbox";
import { makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { commandSut } from "./command-sut.ts";
import { runEval } from "./index.ts";

const sandboxed = sandboxSupport().available;
let root: string;
let sutDir: string;
let bench: { benchRoot: string; benchPath: string; slug: string };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-identity-"));
  bench = await makeTaskClassBench(root, {
    slug: "identity",
    rubric: UPPER_RUBRIC,
    cases: { "i-1": "alpha", "i-2": "beta" },
  });
  sutDir = join(root, "sut");
  mkdirSync(sutDir);
  chmodSync(sutDir, 0o755);
});
afterAll(async () => rm(root, { recursive: true, force: true }));

const MAIN = `import sys, json, helper\nsys.stdin.read()\ntext = open("text.txt").read()\nopen("text.txt", "w").write(helper.transform(text))\nprint("{}")\n`;
const write = (name: string, text: string): void => {
  writeFileSync(join(sutDir, name), text);
  chmodSync(join(sutDir, name), 0o644);
};

/** Runs the bench with `python3 main.py` from sutDir; its digest, pass count and cache hits. */
async function run(stateDir: string, script = "main.py") {
  let hits = 0;
  const result = await runEval(bench.slug, {
    systemUnderTest: commandSut(["/usr/bin/python3", script], {
      cwd: sutDir,
      hide: [bench.benchRoot, join(root, "state")],
      digestCachePath: join(root, "state", "file-digests.json"),
    }),
    benchRoot: bench.benchRoot,
    stateDir,
    concurrency: 1,
    onProgress: (progress) => (hits = progress.cacheHits),
  });
  if (process.env.DEBUG_IDENTITY)
    console.log(JSON.stringify(result.report.per_case.map((unit) => unit.score.failure_modes)));
  return {
    digest: result.report.sut_digest,
    passed: result.report.per_case.filter((unit) => unit.score.passed).length,
    hits,
  };
}

describe.runIf(sandboxed)("sut_digest covers everything a command SUT can run", () => {
  it("a module its script imports from its directory, changed: another digest, no cached pass", async () => {
    write("main.py", MAIN);
    write("helper.py", "def transform(text):\n    return text.upper()\n");
    const stateDir = join(root, "state", "imported");
    const first = await run(stateDir);
    expect(first).toMatchObject({ passed: 2, hits: 0 });
    expect(await run(stateDir)).toEqual({ ...first, hits: 2 });
    write("helper.py", "def transform(text):\n    return text\n");
    const changed = await run(stateDir);
    expect(changed.digest).not.toBe(first.digest);
    expect(changed).toMatchObject({ passed: 0, hits: 0 });
  }, 240_000);

  it("a script over 4 MiB rewritten in place with its mtime restored: another digest, no cached pass", async () => {
    const padding = `# ${"x".repeat(5 * 1024 * 1024)}\n`;
    const big = (body: string): string => `${body}${padding}`;
    write(
      "big.py",
      big(
        `import sys\nsys.stdin.read()\ntext = open("text.txt").read()\nopen("text.txt", "w").write(text.upper())\nprint("{}")\n`,
      ),
    );
    // A whole-second mtime, restorable exactly (utimes takes seconds; the nanoseconds of a fresh write are not).
    utimesSync(join(sutDir, "big.py"), 1_700_000_000, 1_700_000_000);
    const stateDir = join(root, "state", "big");
    const first = await run(stateDir, "big.py");
    expect(first).toMatchObject({ passed: 2, hits: 0 });
    const { atime, mtime, size } = statSync(join(sutDir, "big.py"));
    // Same size, same mtime: only the content (and the ctime the kernel sets) differ.
    write(
      "big.py",
      big(
        `import sys\nsys.stdin.read()\ntext = open("text.txt").read()\nopen("text.txt", "w").write(text.lower())\nprint("{}")\n`,
      ),
    );
    utimesSync(join(sutDir, "big.py"), atime, mtime);
    expect(statSync(join(sutDir, "big.py"), { bigint: true }).mtimeNs).toBe(1_700_000_000_000_000_000n);
    expect(statSync(join(sutDir, "big.py")).size).toBe(size);
    const changed = await run(stateDir, "big.py");
    expect(changed.digest).not.toBe(first.digest);
    expect(changed).toMatchObject({ passed: 0, hits: 0 });
  }, 240_000);

  it("a path it can read that cannot be digested refuses the SUT (no run under an unknown identity)", () => {
    // A path that does not exist is not in its view (the sandbox skips it): digested as absent.
    const absent = commandSut(["/usr/bin/python3", "main.py"], {
      cwd: sutDir,
      readable: [join(root, "not-yet")],
    }).digest;
    mkdirSync(join(root, "not-yet"));
    expect(
      commandSut(["/usr/bin/python3", "main.py"], { cwd: sutDir, readable: [join(root, "not-yet")] }).digest,
    ).not.toBe(absent);
    if (process.getuid?.() === 0) return;
    const closed = join(root, "closed");
    mkdirSync(closed);
    chmodSync(closed, 0o000);
    expect(() => commandSut(["/usr/bin/python3", "main.py"], { cwd: sutDir, readable: [closed] })).toThrow(
      /cannot digest/,
    );
  });
});
