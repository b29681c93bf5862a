// What the vuln-remediation install check costs per case. Three rubrics score every shipped case's
// reference fix (input/ with controls/reference/ laid over it), each as the runner starts one: a fresh
// `node --permission rubric.ts` per case, one RubricRequest on stdin, TMPDIR in its own cwd, a warm
// compile cache per rubric:
//   floor   a rubric that imports the protocol and returns a fixed score (what any Node rubric costs)
//   before  the rubric as it was before the install check (rubric.ts and npm-project.ts at BEFORE)
//   after   today's rubric: registry checks on every case, install from the snapshot and smoke check
//           where the case has one
// They alternate per case, ROUNDS rounds after one warm-up; medians per case of wall time and of CPU
// (user + sys of the rubric process, from bash's `time`; on a shared machine CPU is the steadier figure,
// wall time adds the waits for a contended disk). Goal: the install check adds at most 1.5 s of CPU and
// 5 s of wall time to any case (the worst is lodash: 1,051 files unpacked); reported as after - before per
// case (median and worst) and as ratios to the floor.
// Needs the git history (the before rubric is read with `git show`). The bubblewrap wrapper a run adds is
// the same constant for all three and is left out.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchRow } from "../bench.ts";
import { spawnSync } from "node:child_process";
import { median } from "./timing.ts";

const ROUNDS = 2;
const BEFORE = "1c181ac";
const REPO = join(import.meta.dirname, "..", "..");
const BENCH = join(REPO, "bench", "vuln-remediation");

const FLOOR = `import { runRubric } from "@eval/rubric-protocol";
await runRubric({ score: () => ({ passed: true, score: 1, breakdown: {}, failure_modes: [], cost_usd: 0, wall_clock_ms: 0 }) });
`;

/** A directory holding one rubric's files beside a node_modules link to the bench's dependencies. */
function rubricDir(root: string, name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "cache"), { recursive: true });
  symlinkSync(join(BENCH, "node_modules"), join(dir, "node_modules"));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

const atBefore = (path: string): string =>
  execFileSync("git", ["show", `${BEFORE}:bench/vuln-remediation/${path}`], { cwd: REPO, encoding: "utf8" });

function caseRequest(caseId: string, workspace: string): string {
  const casePath = join(BENCH, "cases", caseId);
  const toml = readFileSync(join(casePath, "case.toml"), "utf8");
  const field = (key: string) => new RegExp(`^${key} = "?([^"\\n]*)"?$`, "m").exec(toml)![1]!;
  const benchCase = {
    case_id: caseId,
    task_class: "vuln-remediation",
    title: field("title"),
    prompt: field("prompt"),
    disposition: field("disposition"),
    difficulty: field("difficulty"),
    source: "curated",
    curation_class: field("curation_class"),
    commit_sha: null,
    added_at: field("added_at"),
    last_validated_at: field("last_validated_at"),
    cassette_canary_pin: field("cassette_canary_pin"),
    case_path: casePath,
    input_path: join(casePath, "input"),
    expected_path: join(casePath, "expected"),
    cassette_path: join(casePath, "cassette"),
    case_digest: `blake3:${"0".repeat(64)}`,
  };
  return JSON.stringify({
    schema_version: "evalgate.rubric_request.v1",
    case: benchCase,
    harness_output: { trial_class: "parse_success" },
    context: { workspace_path: workspace },
  });
}

interface Sample {
  readonly wall: number;
  readonly cpu: number;
}

/** One rubric process on one request, as the runner starts it (without the bwrap wrapper); a passing score required. */
function timeRubric(dir: string, cacheDir: string, request: string, scratch: string): Sample {
  const cwd = mkdtempSync(join(scratch, "cwd-"));
  try {
    const reads = [REPO, scratch].map((path) => `--allow-fs-read=${path}`);
    const args = [
      "--permission",
      ...reads,
      `--allow-fs-write=${cwd}`,
      `--allow-fs-write=${cacheDir}`,
      "--disable-warning=ExperimentalWarning",
      join(dir, "rubric.ts"),
    ];
    const result = spawnSync("bash", ["-c", `TIMEFORMAT='%3R %3U %3S'; time "$0" "$@"`, process.execPath, ...args], {
      cwd,
      input: request,
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin", TMPDIR: cwd, NODE_COMPILE_CACHE: cacheDir },
    });
    const [real, user, sys] = result.stderr.trimEnd().split("\n").at(-1)!.split(" ").map(Number) as [
      number,
      number,
      number,
    ];
    if (result.status !== 0 || !result.stdout.includes('"passed":true'))
      throw new Error(`${dir}/rubric.ts did not pass the reference fix: ${result.stdout}${result.stderr}`);
    return { wall: real * 1000, cpu: (user + sys) * 1000 };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

export default async function vulnRubric(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), "vuln-rubric-bench-"));
  try {
    const floor = rubricDir(scratch, "floor", { "rubric.ts": FLOOR });
    const before = rubricDir(scratch, "before", {
      "rubric.ts": atBefore("rubric.ts"),
      "npm-project.ts": atBefore("npm-project.ts"),
      "breakdown-keys.ts": atBefore("breakdown-keys.ts"),
    });
    const caseIds = readdirSync(join(BENCH, "cases"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    const afterCache = join(scratch, "after-cache");
    mkdirSync(afterCache);
    const rubrics = {
      floor: [floor, join(floor, "cache")],
      before: [before, join(before, "cache")],
      after: [BENCH, afterCache],
    } as const;
    const rows: Array<Record<keyof typeof rubrics, Sample> & { caseId: string; smoke: boolean }> = [];
    for (const caseId of caseIds) {
      const workspace = join(scratch, "ws", caseId);
      cpSync(join(BENCH, "cases", caseId, "input"), workspace, { recursive: true });
      cpSync(join(BENCH, "cases", caseId, "controls", "reference"), workspace, { recursive: true });
      const request = caseRequest(caseId, workspace);
      const samples = { floor: [] as Sample[], before: [] as Sample[], after: [] as Sample[] };
      // Round 0 warms each compile cache and the page cache: not counted.
      for (let round = 0; round <= ROUNDS; round += 1) {
        for (const key of ["floor", "before", "after"] as const) {
          const sample = timeRubric(rubrics[key][0], rubrics[key][1], request, scratch);
          if (round > 0) samples[key].push(sample);
        }
      }
      const mid = (list: Sample[]): Sample => ({
        wall: median(list.map((x) => x.wall)),
        cpu: median(list.map((x) => x.cpu)),
      });
      rows.push({
        caseId,
        floor: mid(samples.floor),
        before: mid(samples.before),
        after: mid(samples.after),
        smoke: readdirSync(join(BENCH, "cases", caseId, "expected")).includes("smoke.cjs"),
      });
    }
    const ms = (value: number) => `${Math.round(value)} ms`;
    const figure = (key: "floor" | "before" | "after") =>
      `wall ${ms(median(rows.map((r) => r[key].wall)))} (${median(rows.map((r) => r[key].wall / r.floor.wall)).toFixed(2)}x floor), CPU ${ms(median(rows.map((r) => r[key].cpu)))} (${median(rows.map((r) => r[key].cpu / r.floor.cpu)).toFixed(2)}x floor)`;
    const added = (subset: typeof rows, what: "wall" | "cpu") =>
      median(subset.map((r) => r.after[what] - r.before[what]));
    const smoke = rows.filter((r) => r.smoke);
    const plain = rows.filter((r) => !r.smoke);
    const worstCpu = rows.reduce((a, b) => (b.after.cpu - b.before.cpu > a.after.cpu - a.before.cpu ? b : a));
    const worstWall = rows.reduce((a, b) => (b.after.wall - b.before.wall > a.after.wall - a.before.wall ? b : a));
    return [
      {
        benchmark: "vuln-rubric",
        measure: `floor rubric per case (median of ${rows.length} cases)`,
        value: figure("floor"),
      },
      { benchmark: "vuln-rubric", measure: "before: the static rubric per case", value: figure("before") },
      { benchmark: "vuln-rubric", measure: "after: with the install check per case", value: figure("after") },
      {
        benchmark: "vuln-rubric",
        measure: `after - before, ${smoke.length} cases installed + smoke-checked (median)`,
        value: `wall ${ms(added(smoke, "wall"))}, CPU ${ms(added(smoke, "cpu"))}`,
      },
      {
        benchmark: "vuln-rubric",
        measure: `after - before, ${plain.length} cases with registry checks only (median)`,
        value: `wall ${ms(added(plain, "wall"))}, CPU ${ms(added(plain, "cpu"))}`,
      },
      {
        benchmark: "vuln-rubric",
        measure: `after - before, worst CPU (${worstCpu.caseId})`,
        value: ms(worstCpu.after.cpu - worstCpu.before.cpu),
        goal: "< 1500 ms",
        ok: worstCpu.after.cpu - worstCpu.before.cpu < 1500,
      },
      {
        benchmark: "vuln-rubric",
        measure: `after - before, worst wall (${worstWall.caseId})`,
        value: ms(worstWall.after.wall - worstWall.before.wall),
        goal: "< 5000 ms",
        ok: worstWall.after.wall - worstWall.before.wall < 5000,
      },
    ];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
