// evalgate init end to end, through the built CLI: a task class scaffolded in a fresh git repository is
// accepted by fence and bench check as written, and a real SUT (a program that solves the example case)
// runs against it, with the state and config found from a subdirectory.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invoke, runBuiltCli } from "../test-helpers.ts";

const PACKAGES = join(import.meta.dirname, "..", "..", "..", "..", "packages");
/** A command SUT that reads question.txt, computes the arithmetic it asks for, and writes answer.txt. */
const SOLVER = String.raw`
import { readFileSync, writeFileSync } from "node:fs";
const request = JSON.parse(readFileSync(0, "utf8"));
const question = readFileSync(request.workspace_path + "/question.txt", "utf8");
const [, a, op, b] = /(\d+)\s*([*+-])\s*(\d+)/.exec(question);
const value = op === "*" ? Number(a) * Number(b) : op === "+" ? Number(a) + Number(b) : Number(a) - Number(b);
writeFileSync(request.workspace_path + "/answer.txt", value + "\n");
process.stdout.write("{}");
`;

let repo: string;
const env = () => ({ PATH: process.env.PATH, HOME: repo });
const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), "evalgate-init-"));
  execFileSync("git", ["init", "-q", repo]);
  writeFileSync(join(repo, "package.json"), JSON.stringify({ name: "my-service", private: true, type: "module" }));
  // What `npm install -D evalgate` leaves: the bench's imports resolvable from node_modules.
  mkdirSync(join(repo, "node_modules", "@eval"), { recursive: true });
  for (const name of ["registry", "models", "errors", "rubric-protocol"])
    symlinkSync(join(PACKAGES, name), join(repo, "node_modules", "@eval", name));
  writeFileSync(join(repo, "solver.mjs"), SOLVER);
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe("evalgate init in a repository of one's own", () => {
  it("scaffolds, prints what it made and the next command", { timeout: 60_000 }, async () => {
    const result = await runBuiltCli(["init", "--task-class", "answers"], { cwd: repo, env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("created  evalgate.config.json\n");
    expect(result.stdout).toContain("created  bench/answers/cases/example-1/controls/reference/answer.txt\n");
    expect(result.stdout).toContain("created  bench/answers/cases/digests.yaml\n");
    expect(result.stdout).toContain("1. npx evalgate bench check --task-class answers --format human");
    expect(result.stdout).not.toContain("npm install -D");
  });

  it("fence and bench check accept it as written", { timeout: 180_000 }, async () => {
    const fence = await runBuiltCli(["fence", "--format", "human"], { cwd: repo, env: env() });
    expect(fence.code, fence.stdout + fence.stderr).toBe(0);
    expect(fence.stdout).toBe("answers: 1 cases (1 held-out)\n");
    const check = await runBuiltCli(["bench", "check", "--task-class", "answers", "--format", "human"], {
      cwd: repo,
      env: env(),
    });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/^example-1\s+pass\s+fail\s+wrong_answer$/m);
    expect(check.stdout).toContain("reference fixes passed 1/1, no-ops judged right 1/1, near misses caught 1/1");
  });

  it(
    "a real SUT runs against it from a subdirectory, into the one state directory the config names",
    { timeout: 180_000 },
    async () => {
      const sub = join(repo, "src", "deep");
      mkdirSync(sub, { recursive: true });
      const run = await runBuiltCli(
        ["run", "--task-class", "answers", "--sut", `command:node ${join(repo, "solver.mjs")}`, "--quiet"],
        { cwd: sub, env: env() },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(jsonLines(run.stdout).at(-1)).toMatchObject({ type: "run", complete: true, scored: 1, passed_count: 1 });
      expect(readdirSync(join(repo, ".evalgate", "runs")).filter((name) => name.endsWith(".json"))).toHaveLength(1);
      expect(readdirSync(sub)).toEqual([]);
      const runs = await runBuiltCli(["runs"], { cwd: sub, env: env() });
      expect(jsonLines(runs.stdout)).toEqual([
        expect.objectContaining({ task_class: "answers", case_count: 1, complete: true }),
      ]);
      const verdict = await runBuiltCli(["promote-verdict", "--task-class", "answers"], { cwd: sub, env: env() });
      expect(verdict.code, verdict.stderr).toBe(0);
      expect(jsonLines(verdict.stdout).at(-1)).toMatchObject({ task_class: "answers", current_tier: "untrusted" });
    },
  );

  it(
    "refuses to scaffold over an existing task class, in one line, changing nothing",
    { timeout: 60_000 },
    async () => {
      const registration = readFileSync(join(repo, "bench", "answers", "registration.ts"), "utf8");
      const again = await runBuiltCli(["init", "--task-class", "answers"], { cwd: repo, env: env() });
      expect(again.code).toBe(1);
      expect(again.stdout).toBe("");
      expect(again.stderr).toBe(
        `evalgate: ${join(repo, "bench", "answers")} already exists: evalgate init never overwrites a task class (EVAL_INIT_CONFLICT); pick another name with --task-class, or remove that directory first\n`,
      );
      expect(readFileSync(join(repo, "bench", "answers", "registration.ts"), "utf8")).toBe(registration);
    },
  );

  it(
    "a second task class with a Python rubric keeps the project files and says the tier line to add",
    { timeout: 180_000 },
    async () => {
      const tiers = readFileSync(join(repo, "trust-tiers.yaml"), "utf8");
      const result = await runBuiltCli(["init", "--task-class", "answers-py", "--rubric", "python"], {
        cwd: join(repo, "src"),
        env: env(),
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("created  ../bench/answers-py/rubric.py\n");
      expect(result.stdout).toContain("kept     ../trust-tiers.yaml (exists)\n");
      expect(result.stdout).toContain(
        '1. add "answers-py: untrusted" under current: in ../trust-tiers.yaml (a reviewed change)',
      );
      expect(readFileSync(join(repo, "trust-tiers.yaml"), "utf8")).toBe(tiers);
      const check = await runBuiltCli(["bench", "check", "--task-class", "answers-py", "--format", "human"], {
        cwd: repo,
        env: env(),
      });
      expect(check.code, check.stdout + check.stderr).toBe(0);
      expect(check.stdout).toMatch(/^example-1\s+pass\s+fail\s+wrong_answer$/m);
    },
  );

  it("bad flags: one line, exit 1", async () => {
    const result = await runBuiltCli(["init", "--rubric", "ruby"], { cwd: repo, env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'evalgate: --rubric must be typescript or python, got "ruby" (EVAL_USAGE); run `evalgate <command> --help` for the accepted flags\n',
    );
  });
});

describe("evalgate init, in-process", () => {
  it(
    "in a pnpm project without the bench's imports: the install line first, then the tier line for a kept tier file",
    { timeout: 60_000 },
    async () => {
      const project = mkdtempSync(join(tmpdir(), "evalgate-init-pnpm-"));
      try {
        writeFileSync(join(project, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n");
        writeFileSync(join(project, "evalgate.config.json"), JSON.stringify({ trust_tiers: "tiers.yaml" }));
        writeFileSync(join(project, "tiers.yaml"), "kept\n");
        const result = await invoke(["init", "--task-class", "mine", "--no-workflow"], {
          cwd: project,
          env: { PATH: process.env.PATH },
        });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain("kept     evalgate.config.json (exists)\n");
        expect(result.stdout).toContain(
          "  1. pnpm add -D @eval/registry @eval/rubric-protocol   # the bench imports @eval/registry and @eval/rubric-protocol\n",
        );
        expect(result.stdout).toContain(
          '  2. add "mine: untrusted" under current: in tiers.yaml (a reviewed change)\n',
        );
        expect(result.stdout).toContain("  3. pnpm exec evalgate bench check --task-class mine --format human");
        expect(readFileSync(join(project, "tiers.yaml"), "utf8")).toBe("kept\n");
        const again = await invoke(["init", "--task-class", "mine"], { cwd: project, env: { PATH: process.env.PATH } });
        expect(again.code).toBe(1);
        expect(again.stderr).toMatch(/EVAL_INIT_CONFLICT/);
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    },
  );
});
