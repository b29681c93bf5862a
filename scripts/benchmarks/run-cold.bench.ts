// Cold `evalgate run` (every case a miss) with the sandbox on, against its floor measured in the same run:
// spawning the SUT and the rubric once per case, each in the same bubblewrap sandbox (and the rubric with
// the same permission flags and compile cache), at the same concurrency, nothing else. A trivial
// `command:` SUT (`node sut.mjs`); the rubric both ways docs teach: importing nothing ("bare") and through
// `runRubric` from @eval/rubric-protocol ("idiom"). Wall time: CPU cannot be compared here, because a
// process reaped inside a PID namespace never reaches the harness's children CPU counters (the sandboxed
// floor shows 5 ms of CPU a case for two Node processes). Goals: the run <= 1.25x its floor; the idiom
// <= 1.1x the bare rubric. Also the no-op `module:` SUT against spawning `node -e 0`
// per case (the goal before the sandbox: >= 65% of that rate). BENCH_CASES (default 200) sets the size;
// BENCH_BEFORE_BIN=<old checkout>/apps/cli/dist/bin.js adds the same run on an older evalgate.
// BENCH_COLD_GOAL_ONLY=1 measures only what the goal compares (the floor and the bare-rubric run), for sizes
// where each extra measurement costs minutes.
import { mkdirSync, rmSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import type { BenchRow } from "../bench.ts";
import { nodeInstallDir, runProcess } from "../../packages/sandbox/src/index.ts";
import { BARE_RUBRIC, generateBench, IDIOM_RUBRIC } from "./run-bench.helpers.ts";
import { median, timeProcess } from "./timing.ts";

const CASES = Number(process.env.BENCH_CASES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const GOAL_ONLY = process.env.BENCH_COLD_GOAL_ONLY === "1";
function measure(run: () => Promise<void> | void): Promise<{ wallMs: number }> {
  const start = performance.now();
  return Promise.resolve(run()).then(() => ({ wallMs: performance.now() - start }));
}

/** The floor: per case, the SUT then the rubric, each in a bubblewrap sandbox like evalgate's, `concurrency` at a time. */
async function sandboxFloor(root: string, benchPath: string, concurrency: number): Promise<void> {
  let next = 0;
  const compileCache = join(root, "floor-compile-cache");
  mkdirSync(compileCache, { recursive: true });
  const request = JSON.stringify({
    schema_version: "evalgate.rubric_request.v1",
    case: { case_id: "case-0001" },
    harness_output: {},
    context: { workspace_path: root },
  });
  const worker = async (): Promise<void> => {
    while (next < CASES) {
      next += 1;
      const sut = await runProcess({
        command: process.execPath,
        args: [join(root, "sut-command.mjs")],
        cwd: root,
        env: { PATH: "/usr/bin:/bin" },
        stdin: request,
        timeoutMs: 60_000,
        sandbox: { readOnly: [root, nodeInstallDir()], writable: [], network: false },
      });
      const rubric = await runProcess({
        command: process.execPath,
        args: [
          "--permission",
          "--no-experimental-sqlite",
          `--allow-fs-read=${benchPath}`,
          `--allow-fs-read=${compileCache}`,
          `--allow-fs-write=${compileCache}`,
          "--disable-warning=ExperimentalWarning",
          join(benchPath, "rubric.ts"),
        ],
        cwd: root,
        env: { PATH: "/usr/bin:/bin", NODE_COMPILE_CACHE: compileCache },
        stdin: request,
        timeoutMs: 60_000,
        sandbox: { readOnly: [benchPath, nodeInstallDir()], writable: [compileCache], network: false },
      });
      if (sut.exitCode !== 0 || rubric.exitCode !== 0)
        throw new Error(`floor process failed: ${sut.stderr}${rubric.stderr}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Wall-clock ms to spawn `node -e 0` `count` times, `concurrency` at a time. */
async function spawnBaseline(count: number, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      await new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
        child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`node -e 0 exited ${code}`))));
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const perCase = (ms: number): string => `${(ms / CASES).toFixed(1)} ms/case`;

export default async function runCold(): Promise<BenchRow[]> {
  const concurrency = Math.min(cpus().length, 4);
  const bare = generateBench(CASES, { rubric: BARE_RUBRIC });
  const idiom = generateBench(CASES, { rubric: IDIOM_RUBRIC });
  const before = process.env.BENCH_BEFORE_BIN;
  try {
    const samples: Record<string, { wallMs: number }[]> = {
      floor: [],
      bare: [],
      idiom: [],
      before: [],
      spawn: [],
      module: [],
    };
    const command = ["--sut", "command:node sut-command.mjs", "--no-cache", "--concurrency", String(concurrency)];
    for (let round = 0; round < ROUNDS; round += 1) {
      samples.floor!.push(await measure(() => sandboxFloor(bare.root, bare.benchPath, concurrency)));
      samples.bare!.push(
        await measure(() => void timeProcess(process.execPath, bare.runArgs(command), { cwd: bare.root })),
      );
      if (GOAL_ONLY) continue;
      samples.idiom!.push(
        await measure(() => void timeProcess(process.execPath, idiom.runArgs(command), { cwd: idiom.root })),
      );
      if (before !== undefined) {
        const args = bare
          .runArgs(command)
          .slice(1)
          .filter((arg) => !arg.startsWith("--sandbox"));
        samples.before!.push(
          await measure(() => void timeProcess(process.execPath, [before, ...args], { cwd: bare.root })),
        );
      }
      samples.spawn!.push(await measure(() => spawnBaseline(CASES, concurrency)));
      samples.module!.push(
        await measure(
          () =>
            void timeProcess(process.execPath, bare.runArgs(["--no-cache", "--concurrency", String(concurrency)]), {
              cwd: bare.root,
            }),
        ),
      );
    }
    const med = (name: string, key: "wallMs"): number => median(samples[name]!.map((sample) => sample[key]));
    const row = (name: string, label: string): BenchRow => ({
      benchmark: "run-cold",
      measure: `${label} (median of ${ROUNDS})`,
      value: `${(med(name, "wallMs") / 1000).toFixed(2)} s wall, ${perCase(med(name, "wallMs"))}`,
    });
    const wallRatio = med("bare", "wallMs") / med("floor", "wallMs");
    const floorLabel = `floor: ${CASES} x (SUT + rubric), each in bwrap, concurrency ${concurrency}`;
    const bareLabel = `evalgate run, command SUT + bare rubric, ${CASES} cases, sandbox on`;
    if (GOAL_ONLY) return [row("floor", floorLabel), row("bare", bareLabel), ratioRow(wallRatio)];
    const idiomRatio = med("idiom", "wallMs") / med("bare", "wallMs");
    const moduleRate = med("spawn", "wallMs") / med("module", "wallMs");
    const rows: BenchRow[] = [
      row("floor", floorLabel),
      row("bare", bareLabel),
      row("idiom", `evalgate run, command SUT + runRubric idiom, ${CASES} cases, sandbox on`),
      ratioRow(wallRatio),
      {
        benchmark: "run-cold",
        measure: "runRubric idiom vs bare rubric (run wall)",
        value: `${idiomRatio.toFixed(2)}x`,
        goal: "<= 1.1x",
        ok: idiomRatio <= 1.1,
      },
      row("spawn", `spawn node -e 0 x${CASES}, concurrency ${concurrency}`),
      row("module", `evalgate run, no-op module SUT + bare rubric, ${CASES} cases, sandbox on`),
      {
        benchmark: "run-cold",
        measure: "module-SUT run rate vs node -e 0 spawn rate (wall)",
        value: `${(moduleRate * 100).toFixed(0)}%`,
      },
    ];
    if (before !== undefined) {
      rows.splice(3, 0, row("before", `the same command-SUT run on ${before} (no sandbox)`));
      rows.push({
        benchmark: "run-cold",
        measure: "sandboxed run vs the same run before the sandbox (wall)",
        value: `${(med("bare", "wallMs") / med("before", "wallMs")).toFixed(2)}x`,
      });
    }
    return rows;
  } finally {
    rmSync(bare.root, { recursive: true, force: true });
    rmSync(idiom.root, { recursive: true, force: true });
  }
}

function ratioRow(wallRatio: number): BenchRow {
  return {
    benchmark: "run-cold",
    measure: "run vs its sandboxed floor (bare rubric, wall)",
    value: `${wallRatio.toFixed(2)}x`,
    goal: "<= 1.25x",
    ok: wallRatio <= 1.25,
  };
}
