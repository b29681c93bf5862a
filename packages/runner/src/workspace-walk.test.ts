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
  // Each file under the file-size limit, together more than the walk's 1 GiB: the disk limit's total.
  "sparse-2x600m": `truncate -s 600M a.bin && truncate -s 600M b.bin && echo '{}'`,
  // Attacks on the limits: stopped at the process count, killed at the memory limit.
  "fork-bomb": `/usr/bin/python3 -c 'import os, time\nwhile True:\n    try: os.fork()\n    except OSError: time.sleep(0.01)'`,
  "memory-bomb": `/usr/bin/python3 -c 'x = []\nwhile True: x.append(bytearray(16 << 20))'`,
};

const ATTACK_LIMITS = { pids: 64, memoryBytes: 256 * 1024 * 1024, diskBytes: 1024 * 1024 * 1024 };

async function runAttack(
  name: string,
  script: string,
  extra: { timeoutPerCaseSeconds?: number } = {},
  sandbox: "bwrap" | "none" = "bwrap",
) {
  const sutScript = join(root, `${name}.sh`);
  await writeFile(sutScript, `cat > /dev/null\n${script}\n`);
  process.env.TMPDIR = scratchTmp;
  const baseline = process.memoryUsage().rss;
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  try {
    const result = await runEval(bench.slug, {
      systemUnderTest: commandSut(["/bin/sh", sutScript], {
        cwd: root,
        sandbox,
        hide: [bench.benchRoot, join(root, "state")],
        limits: ATTACK_LIMITS,
      }),
      benchRoot: bench.benchRoot,
      stateDir: join(root, `state-${name}`),
      concurrency: 1,
      ...extra,
    });
    console.log(
      `${name}: harness RSS ${Math.round(baseline / 2 ** 20)} MiB before the run, peak ${Math.round(peakRss / 2 ** 20)} MiB`,
    );
    return { result, peakRss, baseline };
  } finally {
    clearInterval(sampler);
    process.env.TMPDIR = savedTmp ?? "/tmp";
  }
}

const mechanism = process.getuid?.() === 0 ? "cgroup" : "(cgroup|rlimit)";
/** What each limit attack is recorded as (the rlimit path cannot tell a process-count or memory limit apart from a crash). */
const LIMIT_DETAILS: Record<string, RegExp> = {
  // The file-size limit (1 GiB) refuses the file in the sandbox.
  "sparse-1.5g": /SutResourceLimit: disk limit \(1024 MiB\) reached, enforced by (cgroup|rlimit)/,
  "sparse-2x600m": /^disk limit reached: more than \d+ bytes/,
  "fork-bomb": new RegExp(`^SutResourceLimit: pids limit \\(64 processes\\) reached, enforced by ${mechanism}`),
  "memory-bomb": new RegExp(`^SutResourceLimit: memory limit \\(256 MiB\\) reached, enforced by ${mechanism}`),
};

describe.runIf(sandboxed)("what a SUT leaves in its workspace never keeps its run out of the record", () => {
  it.each(Object.entries(ATTACKS))(
    "%s: the case is recorded, the run is recorded, no temp dir is left, RSS bounded",
    async (name, script) => {
      const { result, peakRss, baseline } = await runAttack(name, script);
      expect(existsSync(result.recordPath)).toBe(true);
      expect(result.report.complete).toBe(true);
      expect(result.report.resource_limits).toBe(process.getuid?.() === 0 ? "cgroup" : "rlimit");
      const score = result.report.per_case[0]!.score;
      if (name === "many-files") {
        // Within the walker's limits: scored by the rubric as usual (the text was left as it was).
        expect(score.failure_modes.map((mode) => mode.code)).toEqual(["wrong_text"]);
      } else if (name in LIMIT_DETAILS) {
        expect(score.failure_modes.map((mode) => mode.code)).toEqual(["sut.resource_limit"]);
        expect(score.passed).toBe(false);
        expect(score.failure_modes[0]!.detail).toMatch(LIMIT_DETAILS[name]!);
      } else {
        expect(score.failure_modes.map((mode) => mode.code)).toEqual(["sut.workspace_invalid"]);
        expect(score.passed).toBe(false);
        expect(score.failure_modes[0]!.detail).toMatch(/ENAMETOOLONG|deeper than/);
      }
      expect(readdirSync(scratchTmp)).toEqual([]);
      // The harness (this test process, which starts near 90 MiB) grows by less than 100 MiB whatever the
      // workspace holds: under the 300 MB target. RSS never shrinks back, so the growth is what is compared.
      expect(peakRss - baseline).toBeLessThan(100 * 1024 * 1024);
    },
    240_000,
  );

  // Without the sandbox: in it the SUT dies with the sandbox's PID namespace at the first SIGTERM.
  it("a SUT that ignores SIGTERM and keeps writing past its deadline (--sandbox none): recorded as a timeout, the workspace removed once its group is gone", async () => {
    const writer = `trap '' TERM; i=0; while true; do mkdir -p "d$i" && echo x > "d$i/f"; i=$((i+1)); done`;
    const { result } = await runAttack("term-ignorer", writer, { timeoutPerCaseSeconds: 1 }, "none");
    expect(existsSync(result.recordPath)).toBe(true);
    expect(result.report.per_case[0]!.score.failure_modes.map((mode) => mode.code)).toEqual(["sut.timeout"]);
    expect(readdirSync(scratchTmp)).toEqual([]);
  }, 120_000);
});
