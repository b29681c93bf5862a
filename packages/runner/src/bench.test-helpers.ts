// Builds small, real task-class directories in temp dirs for runner tests.
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchCase } from "@eval/models";

const REPO = join(import.meta.dirname, "..", "..", "..");

/** A bench dir with `rubric.ts` and a node_modules that links @eval/rubric-protocol and @eval/models, as pnpm would. */
export async function makeRubricBench(rubricSource: string, root?: string): Promise<string> {
  const base = root ?? (await mkdtemp(join(tmpdir(), "evalgate-runner-bench-")));
  const benchPath = join(base, "adversarial");
  await mkdir(join(benchPath, "node_modules", "@eval"), { recursive: true });
  await symlink(join(REPO, "packages", "rubric-protocol"), join(benchPath, "node_modules", "@eval", "rubric-protocol"));
  await symlink(join(REPO, "packages", "models"), join(benchPath, "node_modules", "@eval", "models"));
  await writeFile(join(benchPath, "package.json"), JSON.stringify({ name: "adversarial-bench", private: true, type: "module" }));
  await writeFile(join(benchPath, "rubric.ts"), rubricSource);
  return benchPath;
}

/** A loaded-looking BenchCase whose directories exist. */
export async function makeCase(benchPath: string, caseId: string, overrides: Partial<Record<string, unknown>> = {}): Promise<BenchCase> {
  const casePath = join(benchPath, "cases", caseId);
  await mkdir(join(casePath, "input"), { recursive: true });
  await mkdir(join(casePath, "expected"), { recursive: true });
  await writeFile(join(casePath, "input", "data.txt"), `input of ${caseId}\n`);
  return {
    case_id: caseId,
    task_class: "adversarial",
    disposition: "positive",
    difficulty: "easy",
    source: "curated",
    curation_class: "held-out",
    commit_sha: null,
    added_at: "2026-01-01T00:00:00Z",
    last_validated_at: "2026-01-01T00:00:00Z",
    cassette_canary_pin: "0123456789abcdef0123456789abcdef",
    case_path: casePath,
    input_path: join(casePath, "input"),
    expected_path: join(casePath, "expected"),
    cassette_path: null,
    case_digest: `blake3:${"ab".repeat(32)}`,
    ...overrides,
  } as BenchCase;
}

/**
 * One rubric whose behaviour is chosen by the case id: a well-behaved one plus each adversary the
 * isolation must contain. Written without imports where the behaviour does not need them.
 */
export const ADVERSARIAL_RUBRIC = String.raw`
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { Worker } from "node:worker_threads";
const request = JSON.parse(readFileSync(0, "utf8"));
const id = request.case.case_id;
const respond = (score, extra = {}) =>
  process.stdout.write(JSON.stringify({ schema_version: "evalgate.rubric_response.v1", score: { passed: score >= 0.5, score, breakdown: { quality: score }, failure_modes: [], cost_usd: 99, wall_clock_ms: 1, ...extra } }));
switch (id) {
  case "honest": {
    const input = readFileSync(request.case.input_path + "/data.txt", "utf8");
    const workspace = request.context.workspace_path ? readFileSync(request.context.workspace_path + "/data.txt", "utf8") : "";
    respond(input === workspace ? 1 : 0.25);
    break;
  }
  case "env-snoop": {
    process.stderr.write(JSON.stringify(process.env));
    respond(process.env.ANTHROPIC_API_KEY === undefined && process.env.HOME === undefined ? 1 : 0);
    break;
  }
  case "write-cwd": {
    writeFileSync("left-behind.txt", "x");
    process.stderr.write("CWD=" + process.cwd());
    respond(existsSync("left-behind.txt") ? 1 : 0);
    break;
  }
  case "write-outside": {
    writeFileSync(process.env.TMPDIR + "/../evalgate-escape-" + request.case.case_digest.slice(7, 15) + ".txt", "escaped");
    writeFileSync(request.case.input_path + "/escaped.txt", "escaped");
    respond(1);
    break;
  }
  case "spawn-child": {
    execFileSync("/bin/sh", ["-c", "echo pwned"]);
    respond(1);
    break;
  }
  case "start-worker": {
    new Worker("process.exit(0)", { eval: true });
    respond(1);
    break;
  }
  case "loop-forever": {
    process.stderr.write("looping\n");
    for (;;) {}
  }
  case "print-1gb": {
    const chunk = "x".repeat(1 << 20);
    let written = 0;
    const pump = () => {
      while (written < 1024) {
        written += 1;
        if (!process.stdout.write(chunk)) return process.stdout.once("drain", pump);
      }
    };
    pump();
    break;
  }
  case "invalid-json": {
    process.stdout.write("{ this is not json");
    break;
  }
  case "llm-confidence": {
    respond(0.9, { breakdown: { quality: 0.9, llm_confidence: 0.99 } });
    break;
  }
  case "unknown-failure-code": {
    respond(0.4, { failure_modes: [{ code: "made_up_code", severity: "info", detail: "the rubric invented it" }] });
    break;
  }
  case "read-secret": {
    respond(readFileSync("/etc/shadow", "utf8").length > 0 ? 1 : 0);
    break;
  }
  case "network": {
    const net = await import("node:net");
    const socket = net.connect({ host: "1.1.1.1", port: 53 });
    socket.on("connect", () => { respond(1); socket.destroy(); });
    socket.on("error", (error) => { process.stderr.write("network: " + error.code); respond(0); });
    break;
  }
  default:
    respond(0.5);
}
`;

/** A rubric that uses the published protocol helper, imported through the bench's node_modules. */
export const PROTOCOL_RUBRIC = String.raw`
import { runRubric } from "@eval/rubric-protocol";
await runRubric({
  score(benchCase, harnessOutput) {
    const value = typeof harnessOutput.value === "number" ? harnessOutput.value : 0.5;
    return { passed: value >= 0.5, score: value, breakdown: { quality: value }, failure_modes: [], cost_usd: 0, wall_clock_ms: 0 };
  },
});
`;
