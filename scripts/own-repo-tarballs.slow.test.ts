// SLOW (about 2 to 5 minutes): a task class in a repository of one's own, from the publishable tarballs
// only. Every package is packed as it would be published; a fresh project per package manager (npm, pnpm,
// yarn) installs `evalgate` from its tarball (the @eval/* packages it depends on from theirs), then runs
// the installed binary: `--version`, `init`, the bench packages init says to add, `bench check`, a `run` of
// the scaffolded task class against a real command SUT, and `report`. A tarball missing a file the CLI
// needs on that path fails the test (the binary cannot load it). A manager that is not on PATH is skipped,
// its test named as such. Needs `pnpm build` first (scripts/test.sh builds before testing).
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const exec = promisify(execFile);
const repo = join(import.meta.dirname, "..");
const manifests = [
  ...readdirSync(join(repo, "packages")).map((name) => join(repo, "packages", name)),
  join(repo, "apps", "cli"),
]
  .map((dir) => ({
    dir,
    ...(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; private?: boolean }),
  }))
  .filter((manifest) => manifest.private !== true);

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

type Manager = "npm" | "pnpm" | "yarn";
const INSTALL: Record<Manager, readonly string[]> = {
  npm: ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", "--ignore-scripts"],
  // CI is set (as on a runner), where pnpm freezes the lockfile by default: the second install (after
  // adding what init asks for, as `pnpm add` would) must update it.
  pnpm: [
    "install",
    "--prefer-offline",
    "--ignore-scripts",
    "--no-frozen-lockfile",
    "--config.confirmModulesPurge=false",
  ],
  yarn: ["install", "--prefer-offline", "--ignore-scripts", "--non-interactive", "--silent"],
};

const onPath = (command: string): boolean =>
  (process.env.PATH ?? "").split(delimiter).some((dir) => dir !== "" && existsSync(join(dir, command)));

let scratch: string;
const tarballs = new Map<string, string>();
const spec = (name: string): string => `file:${tarballs.get(name)!}`;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "evalgate-own-repo-"));
  const packDir = join(scratch, "tarballs");
  // Four packs at a time: each is mostly waiting on pnpm's start-up.
  const queue = [...manifests];
  const packer = async (): Promise<void> => {
    for (let manifest = queue.shift(); manifest !== undefined; manifest = queue.shift()) {
      const { stdout } = await exec("pnpm", ["pack", "--pack-destination", packDir, "--json"], { cwd: manifest.dir });
      tarballs.set(manifest.name, (JSON.parse(stdout) as { filename: string }).filename);
    }
  };
  await Promise.all([packer(), packer(), packer(), packer()]);
}, 600_000);
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A fresh project that declares only `evalgate` (and `extra`), every @eval/* package pinned to its tarball. */
function writeManifest(project: string, extra: readonly string[]): void {
  const pinned = Object.fromEntries(manifests.filter((m) => m.name !== "evalgate").map((m) => [m.name, spec(m.name)]));
  const devDependencies = Object.fromEntries(["evalgate", ...extra].map((name) => [name, spec(name)]));
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify(
      {
        name: "my-service",
        private: true,
        type: "module",
        devDependencies,
        overrides: pinned,
        pnpm: { overrides: pinned },
        resolutions: pinned,
      },
      null,
      2,
    ),
  );
}

async function sh(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(command, args, {
      cwd,
      env: { ...process.env, CI: "1", npm_config_yes: "true" },
      maxBuffer: 32 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return {
      code: typeof failed.code === "number" ? failed.code : 1,
      stdout: failed.stdout ?? "",
      stderr: failed.stderr ?? String(error),
    };
  }
}

describe.each(["npm", "pnpm", "yarn"] as const)(
  "a task class in its own %s project, from the tarballs only",
  (manager) => {
    it.skipIf(!onPath(manager))(
      `${manager}: install evalgate, --version, init, bench check, run and report through the installed binary`,
      { timeout: 600_000 },
      async () => {
        const project = join(scratch, manager);
        mkdirSync(project);
        await exec("git", ["init", "-q", project]);
        writeManifest(project, []);
        writeFileSync(join(project, "solver.mjs"), SOLVER);
        const installed = await sh(manager, INSTALL[manager], project);
        expect(installed.code, installed.stdout + installed.stderr).toBe(0);
        // Nothing resolves to the checkout: every @eval/* package came from its tarball.
        const evalgate = join(project, "node_modules", ".bin", "evalgate");
        const cli = (args: readonly string[]) => sh(evalgate, args, project);

        const version = await cli(["--version"]);
        expect(version.code, version.stderr).toBe(0);
        expect(version.stdout.trim()).toBe(
          JSON.parse(readFileSync(join(repo, "apps", "cli", "package.json"), "utf8")).version,
        );

        const init = await cli(["init", "--task-class", "answers"]);
        expect(init.code, init.stderr).toBe(0);
        expect(init.stdout).toContain("created  bench/answers/rubric.ts\n");
        // With a strict layout (pnpm) the bench's imports are not resolvable until added: init says how.
        const add = /^ {2}\d+\. (\S+ add -D|npm install -D) ((?:@eval\/[a-z-]+ ?)+)/m.exec(init.stdout);
        if (add !== null) {
          expect(add[1]).toBe(manager === "npm" ? "npm install -D" : `${manager} add -D`);
          writeManifest(project, add[2]!.trim().split(" "));
          const again = await sh(manager, INSTALL[manager], project);
          expect(again.code, again.stdout + again.stderr).toBe(0);
        }

        const check = await cli(["bench", "check", "--task-class", "answers", "--format", "human"]);
        expect(check.code, check.stdout + check.stderr).toBe(0);
        expect(check.stdout).toContain("reference fixes passed 1/1, no-ops judged right 1/1, near misses caught 1/1");

        const run = await cli([
          "run",
          "--task-class",
          "answers",
          "--sut",
          "command:node solver.mjs",
          "--format",
          "human",
          "--quiet",
        ]);
        expect(run.code, run.stdout + run.stderr).toBe(0);
        expect(run.stdout).toContain("task class answers: 1/1 cases, 1 passed");
        expect(run.stdout).toContain("failing    none\n");
        const runId = /^report {5}evalgate report --run (\S+)/m.exec(run.stdout)![1]!;

        const report = await cli(["report", "--run", runId, "-o", "report.html"]);
        expect(report.code, report.stderr).toBe(0);
        expect(readFileSync(join(project, "report.html"), "utf8")).toContain("answers");
        const runs = await cli(["runs"]);
        expect(runs.stdout).toContain(runId);
      },
    );
  },
);
