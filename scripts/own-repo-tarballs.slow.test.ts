// SLOW (606 s with the machine at load 19-27 on 2 cores; 104 s of CPU): a task class in a repository of one's own,
// from the publishable tarballs only, following docs/bench-authoring.md ("In your own repository") command by
// command. Every package is packed once as it would be published; a fresh project per package manager (npm, pnpm,
// and yarn 1.x installed from the npm registry into a scratch prefix, so it runs wherever npm can reach the
// registry) installs `evalgate` from its tarball (the @eval/* packages it depends on from theirs) and `leven`, the
// registry package the rubric is edited to import (declared with evalgate, one install for both, where the doc
// shows `npm install -D leven@3.0.0`). Then, through the installed binary: `--version`, `init`, the bench packages
// init says to add, the rubric edit, `bench check`, a `run` of the scaffolded task class against a real command
// SUT, `promote-verdict`, a second case added and `bench sign`ed, `fence`, `bench check` again, a second run (the
// first case from the cache), `runs` from a subdirectory, `report`, and a bump of leven 3.0.0 -> 3.1.0 through the
// manager's own `add`, after which every case misses the cache. The three projects run at once. A tarball missing
// a file the CLI needs on that path fails the test (the binary cannot load it). Needs `pnpm build` first
// (scripts/test.sh builds before testing).
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

/** Pinned: the yarn the test installs, and the rubric's registry dependency before and after its bump. */
const YARN_VERSION = "1.22.22";
const LEVEN_BEFORE = "3.0.0";
const LEVEN_AFTER = "3.1.0";

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
/** Flags every install and add of a manager takes. */
const FLAGS: Record<Manager, readonly string[]> = {
  npm: ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", "--ignore-scripts"],
  pnpm: ["--prefer-offline", "--ignore-scripts", "--config.confirmModulesPurge=false"],
  yarn: ["--prefer-offline", "--ignore-scripts", "--non-interactive", "--silent"],
};
// CI is set (as on a runner), where pnpm freezes the lockfile by default: the second install (after
// adding what init asks for, as `pnpm add` would) must update it.
const install = (manager: Manager) => [
  "install",
  ...FLAGS[manager],
  ...(manager === "pnpm" ? ["--no-frozen-lockfile"] : []),
];
/** The manager's own command that adds a registry dependency, as docs/bench-authoring.md shows it. */
const add = (manager: Manager, spec: string) => [manager === "npm" ? "install" : "add", "-D", spec, ...FLAGS[manager]];
const LOCKFILE: Record<Manager, string> = { npm: "package-lock.json", pnpm: "pnpm-lock.yaml", yarn: "yarn.lock" };

let scratch: string;
const tarballs = new Map<string, string>();
const spec = (name: string): string => `file:${tarballs.get(name)!}`;
const binary: Record<Manager, string> = { npm: "npm", pnpm: "pnpm", yarn: "yarn" };

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "evalgate-own-repo-"));
  const packDir = join(scratch, "tarballs");
  const filters = manifests.flatMap((manifest) => ["--filter", manifest.name]);
  const yarnPrefix = join(scratch, "yarn-bin");
  binary.yarn = join(yarnPrefix, "node_modules", ".bin", "yarn");
  // One recursive pack (pnpm replaces workspace: ranges as publishing would) beside the yarn install.
  const [packed] = await Promise.all([
    exec("pnpm", ["-r", ...filters, "pack", "--pack-destination", packDir, "--json"], {
      cwd: repo,
      maxBuffer: 64 << 20,
    }),
    exec("npm", ["install", "--prefix", yarnPrefix, `yarn@${YARN_VERSION}`, ...FLAGS.npm]),
  ]);
  for (const { name, filename } of JSON.parse(packed.stdout) as Array<{ name: string; filename: string }>)
    tarballs.set(name, filename);
  expect([...tarballs.keys()].sort()).toEqual(manifests.map((manifest) => manifest.name).sort());
}, 600_000);
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A fresh project that declares `evalgate` (and `extra`) from its tarball and leven from the registry. */
function writeManifest(project: string, extra: readonly string[]): void {
  const pinned = Object.fromEntries(manifests.filter((m) => m.name !== "evalgate").map((m) => [m.name, spec(m.name)]));
  const devDependencies = {
    ...Object.fromEntries(["evalgate", ...extra].map((name) => [name, spec(name)])),
    leven: LEVEN_BEFORE,
  };
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
      // yarn 1 caches a file: tarball by name and version: a scratch cache keeps an earlier pack out.
      env: { ...process.env, CI: "1", npm_config_yes: "true", YARN_CACHE_FOLDER: join(scratch, "yarn-cache") },
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

/** The rubric edit docs/bench-authoring.md shows: a wrong answer's detail names its edit distance (leven). */
function importLeven(rubricPath: string): void {
  const source = readFileSync(rubricPath, "utf8");
  const edited = source
    .replace(/^(import .*\n)/, `$1import leven from "leven";\n`)
    .replace(
      "detail: answer }",
      "detail: answer === null ? null : `${answer} (edit distance ${leven(answer, expected)})` }",
    );
  expect(edited).toContain("leven(answer, expected)");
  writeFileSync(rubricPath, edited);
}

/** The case the doc adds: a copy of example-1 with its own id, pin, question, answer and controls. */
function addTwelveSquared(cases: string): void {
  const dir = join(cases, "twelve-squared");
  cpSync(join(cases, "example-1"), dir, { recursive: true });
  const toml = readFileSync(join(dir, "case.toml"), "utf8")
    .replace('case_id = "example-1"', 'case_id = "twelve-squared"')
    .replace(/cassette_canary_pin = "[0-9a-f]+"/, 'cassette_canary_pin = "0c1d2e3f405162738495a6b7c8d9eaf1"');
  writeFileSync(join(dir, "case.toml"), toml);
  writeFileSync(join(dir, "input", "question.txt"), "What is 12 * 12?\n");
  writeFileSync(join(dir, "expected", "answer.txt"), "144\n");
  writeFileSync(join(dir, "controls", "reference", "answer.txt"), "144\n");
  writeFileSync(join(dir, "controls", "wrong-answer", "answer.txt"), "143\n");
}

/** Each case's cache column in a human `run` table. */
const cacheColumn = (stdout: string): Record<string, string> =>
  Object.fromEntries([...stdout.matchAll(/^(\S+)\s+\d\.\d{3}\s+(?:yes|no)\s+(hit|miss)\b/gm)].map((m) => [m[1], m[2]]));

describe("a task class in its own project, from the tarballs only", () => {
  it.concurrent.each(["npm", "pnpm", "yarn"] as const)(
    "%s: install, init, rubric dependency, check, run, verdict, add and sign a case, fence, run from the cache, runs, report, and a dependency bump that misses the cache",
    async (manager) => {
      const project = join(scratch, manager);
      mkdirSync(project);
      await exec("git", ["init", "-q", project]);
      writeManifest(project, []);
      writeFileSync(join(project, "solver.mjs"), SOLVER);
      const pm = (args: readonly string[]) => sh(binary[manager], args, project);
      const installed = await pm(install(manager));
      expect(installed.code, installed.stdout + installed.stderr).toBe(0);
      // Nothing resolves to the checkout: every @eval/* package came from its tarball. The doc writes
      // `npx evalgate`; the test calls the binary that runs.
      const evalgate = join(project, "node_modules", ".bin", "evalgate");
      const cli = (args: readonly string[], cwd = project) => sh(evalgate, args, cwd);

      const version = await cli(["--version"]);
      expect(version.code, version.stderr).toBe(0);
      expect(version.stdout.trim()).toBe(
        JSON.parse(readFileSync(join(repo, "apps", "cli", "package.json"), "utf8")).version,
      );

      const init = await cli(["init", "--task-class", "answers"]);
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toContain("created  bench/answers/rubric.ts\n");
      // With a strict layout (pnpm) the bench's imports are not resolvable until added: init says how.
      const needed = /^ {2}\d+\. (\S+ add -D|npm install -D) ((?:@eval\/[a-z-]+ ?)+)/m.exec(init.stdout);
      expect(needed === null).toBe(manager !== "pnpm");
      if (needed !== null) {
        expect(needed[1]).toBe(manager === "npm" ? "npm install -D" : `${manager} add -D`);
        writeManifest(project, needed[2]!.trim().split(" "));
        const again = await pm(install(manager));
        expect(again.code, again.stdout + again.stderr).toBe(0);
      }
      const bench = join(project, "bench", "answers");
      importLeven(join(bench, "rubric.ts"));

      const check = await cli(["bench", "check", "--task-class", "answers", "--format", "human"]);
      expect(check.code, check.stdout + check.stderr).toBe(0);
      expect(check.stdout).toContain("reference fixes passed 1/1, no-ops judged right 1/1, near misses caught 1/1");

      const runArgs = ["run", "--task-class", "answers", "--sut", "command:node solver.mjs", "--format", "human"];
      const first = await cli(runArgs);
      expect(first.code, first.stdout + first.stderr).toBe(0);
      expect(first.stdout).toContain("task class answers: 1/1 cases, 1 passed");
      expect(first.stdout).toContain("failing    none\n");
      expect(cacheColumn(first.stdout)).toEqual({ "example-1": "miss" });
      const firstId = /^report {5}evalgate report --run (\S+)/m.exec(first.stdout)![1]!;

      const verdict = await cli(["promote-verdict", "--task-class", "answers", "--format", "human"]);
      expect(verdict.stdout, verdict.stderr).toContain("answers: untrusted -> bronze: evidence NOT sufficient");
      expect(verdict.stdout).toContain("cases 1 < 10 required for bronze");
      expect(verdict.stdout).toContain(firstId);

      addTwelveSquared(join(bench, "cases"));
      const sign = await cli(["bench", "sign", "--task-class", "answers", "--format", "human"]);
      expect(sign.code, sign.stdout + sign.stderr).toBe(0);
      expect(sign.stdout).toContain("added    twelve-squared\n");
      const fence = await cli(["fence", "--format", "human"]);
      expect(fence.code, fence.stdout + fence.stderr).toBe(0);
      expect(fence.stdout).toContain("answers: 2 cases (2 held-out)");
      const checkTwo = await cli(["bench", "check", "--task-class", "answers", "--format", "human"]);
      expect(checkTwo.code, checkTwo.stdout + checkTwo.stderr).toBe(0);
      expect(checkTwo.stdout).toContain("reference fixes passed 2/2, no-ops judged right 2/2, near misses caught 2/2");

      const second = await cli(runArgs);
      expect(second.code, second.stdout + second.stderr).toBe(0);
      expect(second.stdout).toContain("task class answers: 2/2 cases, 2 passed, 1 from cache");
      expect(cacheColumn(second.stdout)).toEqual({ "example-1": "hit", "twelve-squared": "miss" });
      const secondId = /^report {5}evalgate report --run (\S+)/m.exec(second.stdout)![1]!;

      // From a subdirectory: the config file is found by walking up, and with it the same state.
      const runs = await cli(["runs", "--format", "human"], bench);
      expect(runs.code, runs.stderr).toBe(0);
      const listed = runs.stdout.split("\n").filter((line) => /^\d{8}T\d{6}Z-/.test(line));
      expect(listed.map((line) => line.split(/\s+/)[0])).toEqual([secondId, firstId]);
      const report = await cli(["report", "--run", secondId, "-o", "report.html"]);
      expect(report.code, report.stderr).toBe(0);
      expect(readFileSync(join(project, "report.html"), "utf8")).toContain("answers");

      // The rubric's dependency moves in the lockfile (nothing under bench/ changes): every case re-scored.
      const lockBefore = readFileSync(join(project, LOCKFILE[manager]), "utf8");
      const bumped = await pm(add(manager, `leven@${LEVEN_AFTER}`));
      expect(bumped.code, bumped.stdout + bumped.stderr).toBe(0);
      expect(readFileSync(join(project, LOCKFILE[manager]), "utf8")).not.toBe(lockBefore);
      const levenManifest = join(project, "node_modules", "leven", "package.json");
      expect(JSON.parse(readFileSync(levenManifest, "utf8")).version).toBe(LEVEN_AFTER);
      const third = await cli(runArgs);
      expect(third.code, third.stdout + third.stderr).toBe(0);
      expect(third.stdout).toContain("task class answers: 2/2 cases, 2 passed");
      expect(cacheColumn(third.stdout)).toEqual({ "example-1": "miss", "twelve-squared": "miss" });
    },
    900_000, // three projects at once: under a loaded machine one took 519 s
  );
});
