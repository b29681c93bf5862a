// No veto over the record: whatever a SUT leaves in its workspace (a tree deeper than PATH_MAX, 100,000
// files, a 1.5 GiB sparse file, a process that ignores SIGTERM and keeps writing), the case is recorded,
// the run is recorded, no temp dir is left and the harness's memory stays bounded.
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSupport } from "@eval/sandbox";
import { makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { commandSut } from "./command-sut.ts";
import { runEval } from "./index.ts";

const sandboxed = sandboxSupport().available;
let root: string;
let bench: { benchRoot: string; benchPath: string; slug: string };
let scratchTmp: string;
const savedTmp = process.env.TMPDIR;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-walk-"));
  bench = await makeTaskClassBench(root, { slug: "walk", rubric: UPPER_RUBRIC, cases: { "w-1": "alpha" } });
  // The run's temp root goes here, so the test can see that nothing is left.
  scratchTmp = join(root, "tmp");
  await mkdir(scratchTmp);
});
afterAll(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(root, { recursive: true, force: true });
});

const ATTACKS: Record<string, string> = {
  // 30 levels of 200-character names: about 6,000 characters, beyond PATH_MAX (4,096).
  "too-deep": `/usr/bin/python3 -c 'import os\nfor i in range(30): os.mkdir("a" * 200); os.chdir("a" * 200)' && echo '{}'`,
  "many-files": `mkdir many && cd many && seq 100000 | xargs touch && cd .. && echo '{}'`,
  "sparse-1.5g": `truncate -s 1536M big.bin && echo '{}'`,
};

async function runAttack(name: string, script: string, extra: { timeoutPerCaseSeconds?: number } = {}, sandbox: "bwrap" | "none" = "bwrap") {
  const sutScript = join(root, `${name}.sh`);
  await writeFile(sutScript, `cat > /dev/null\n${script}\n`);
  process.env.TMPDIR = scratchTmp;
  const baseline = process.memoryUsage().rss;
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  try {
    const result = await runEval(bench.slug, {
      systemUnderTest: commandSut(["/bin/sh", sutScript], { cwd: root, sandbox, hide: [bench.benchRoot, join(root, "state")] }),
      benchRoot: bench.benchRoot,
      stateDir: join(root, `state-${name}`),
      concurrency: 1,
      ...extra,
    });
    console.log(`${name}: harness RSS ${Math.round(baseline / 2 ** 20)} MiB before the run, peak ${Math.round(peakRss / 2 ** 20)} MiB`);
    return { result, peakRss, baseline };
  } finally {
    clearInterval(sampler);
    process.env.TMPDIR = savedTmp ?? "/tmp";
  }
}

describe.runIf(sandboxed)("what a SUT leaves in its workspace never keeps its run out of the record", () => {
  it.each(Object.entries(ATTACKS))("%s: the case is recorded, the run is recorded, no temp dir is left, RSS bounded", async (name, script) => {
    const { result, peakRss, baseline } = await runAttack(name, script);
    expect(existsSync(result.recordPath)).toBe(true);
    expect(result.report.complete).toBe(true);
    const score = result.report.per_case[0]!.score;
    if (name === "many-files") {
      // Within the walker's limits: scored by the rubric as usual (the text was left as it was).
      expect(score.failure_modes.map((mode) => mode.code)).toEqual(["wrong_text"]);
    } else {
      expect(score.failure_modes.map((mode) => mode.code)).toEqual(["sut.workspace_invalid"]);
      expect(score.passed).toBe(false);
      expect(score.failure_modes[0]!.detail).toMatch(name === "too-deep" ? /ENAMETOOLONG|deeper than/ : /more than \d+ bytes/);
    }
    expect(readdirSync(scratchTmp)).toEqual([]);
    // The harness (this test process, which starts near 90 MiB) grows by less than 100 MiB whatever the
    // workspace holds: under the 300 MB target. RSS never shrinks back, so the growth is what is compared.
    expect(peakRss - baseline).toBeLessThan(100 * 1024 * 1024);
  }, 240_000);

  // Without the sandbox: in it the SUT dies with the sandbox's PID namespace at the first SIGTERM.
  it("a SUT that ignores SIGTERM and keeps writing past its deadline (--sandbox none): recorded as a timeout, the workspace removed once its group is gone", async () => {
    const writer = `trap '' TERM; i=0; while true; do mkdir -p "d$i" && echo x > "d$i/f"; i=$((i+1)); done`;
    const { result } = await runAttack("term-ignorer", writer, { timeoutPerCaseSeconds: 1 }, "none");
    expect(existsSync(result.recordPath)).toBe(true);
    expect(result.report.per_case[0]!.score.failure_modes.map((mode) => mode.code)).toEqual(["sut.timeout"]);
    expect(readdirSync(scratchTmp)).toEqual([]);
  }, 120_000);
});
