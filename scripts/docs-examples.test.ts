// Every example command in the README, docs/*.md and every command's --help runs, as written, against a
// temporary state directory. A command is run unless EXCLUDED names it with the reason; a new example
// that cannot run here needs a line there (or a fix), never silence. Files a docs page shows as
// `<!-- example-file: NAME -->` blocks (the SUT examples of docs/runner.md) are written to the scratch
// directory the commands run in, so the pages' own code is what runs.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = join(import.meta.dirname, "..");
const DOCS = [
  "README.md",
  ...readdirSync(join(repo, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** Commands the test does not run, each with why. Matched against the command as written. */
const EXCLUDED: ReadonlyArray<{ readonly pattern: RegExp; readonly reason: string }> = [
  {
    pattern: /^\.\/scripts\/setup\.sh$/,
    reason: "installs system packages and the toolchain; scripts/quick-start.test.ts checks the quick start",
  },
  { pattern: /^\.\/scripts\/test\.sh$/, reason: "runs the whole suite, this test included" },
  {
    pattern: /--sut cli:|adapters compliance-check/,
    reason:
      "drives a live agent CLI with a subscription login, which tests cannot have; the fake-CLI tests in apps/cli and cli-subscription-adapters cover the flow",
  },
  {
    pattern: /evalgate model-stub --scenario/,
    reason:
      "serves until SIGINT or SIGTERM; apps/cli/src/commands/model-stub.test.ts runs it, talks to it and stops it",
  },
  {
    pattern: /adapters doctor --adapter/,
    reason: "exits 1 unless that agent CLI is installed and logged in, which depends on the machine",
  },
  { pattern: /\[--|<[a-z-|]+>/, reason: "a synopsis with placeholders ([optional] or <value>), not a command" },
  {
    pattern: /evalgate bench sign --task-class vuln-remediation/,
    reason: "rewrites the repository's own cases/digests.yaml; apps/cli/src/commands/bench.test.ts signs a copy",
  },
  { pattern: /evalgate fence --bench-root \.\.\/other\/bench/, reason: "names a bench root outside this repository" },
  { pattern: /evalgate promote-verdict .*--run \d{8}T/, reason: "names a run id from the author's state directory" },
  {
    pattern: /evalgate transcript import --provider/,
    reason: "reads the reader's own session log; transcript-import.test.ts imports captured streams",
  },
  { pattern: /--expect-head sha256:\.\.\./, reason: "names the chain head a reader committed to git" },
  {
    pattern: /^\.\/evalgate\/scripts\/setup\.sh$/,
    reason: "sets up a fresh clone; scripts/quick-start.test.ts checks the set-up",
  },
  {
    pattern: /^cd my-project$|^pnpm add (-D )?link:\.\.\/evalgate\/|^pnpm exec evalgate --version$/,
    reason: "run by scripts/link-packages.test.ts in a scratch project beside a link to this clone",
  },
  {
    pattern: /^\.\/scripts\/agent-clis\.sh$/,
    reason: "installs the pinned agent CLIs (about 1 GB); scripts/test.sh runs it before the suite",
  },
  {
    pattern: /^pnpm exec vitest run .*real-(clis|agents)\.test\.ts/,
    reason: "runs the real-agent tests, which the suite this test belongs to runs",
  },
  {
    pattern: /^pnpm changeset (status|version)|^pnpm run build$|^pnpm publish -r$/,
    reason:
      "the release steps: version rewrites the repository's package files, publish needs a registry login; scripts/changesets.test.ts checks the release plan",
  },
  {
    pattern: /evalgate attest --verify run\.intoto\.json/,
    reason:
      "needs the attestation of a recorded, signed run; apps/cli/src/commands/signing.test.ts writes one, verifies it and tampers with it",
  },
  {
    pattern: /evalgate key generate --write /,
    reason:
      "writes a private key beside the working directory; apps/cli/src/commands/signing.test.ts generates keys and signs with them",
  },
  {
    pattern: /evalgate run --task-class upper --bench-root bench --sut 'command:node stochastic-sut\.mjs/,
    reason:
      "the output of scripts/reliability-demo.ts, on the bench it builds; apps/cli/src/commands/trials.test.ts runs the same SUT and checks the figures",
  },
  {
    pattern: /evalgate bench check --task-class /,
    reason:
      "scores every control of a bench in the sandbox (minutes on a shared machine); apps/cli/src/commands/bench-check.test.ts runs it on both shipped benches and a case subset",
  },
  {
    pattern: /^cp -r bench\/[a-z-]+\/cases \/tmp\/answer-key$|reference-fix\.ts \/tmp\/answer-key/,
    reason:
      "the oracle SUT over a whole bench (minutes of sandboxed cases); its figures are in docs/trust-tiers.yaml and docs/bench-authoring.md",
  },
  {
    pattern: /evalgate rescore --run \d{8}T/,
    reason: "names a run id from the author's state directory; apps/cli/src/seeing.test.ts rescores a real run",
  },
  {
    pattern: /evalgate show --case \S+ --trial \d/,
    reason:
      "needs a run made with --trials, which the examples' state does not have; apps/cli/src/seeing.test.ts shows a trial of a 3-trial run",
  },
  {
    pattern: /evalgate init( |$)/,
    reason:
      "writes a task class into the bench root, which the examples' environment points at this repository's bench/; apps/cli/src/commands/init.test.ts runs init in a fresh git repository",
  },
  {
    pattern: /^npx evalgate |^cp -r bench\/answers\/|^npm install -D leven@|^cd bench$/,
    reason:
      "docs/bench-authoring.md's walkthrough in a project of one's own; apps/cli/src/commands/init.test.ts runs its steps (init, fence, bench check, run, runs, promote-verdict) in a fresh git repository, and scripts/own-repo-tarballs.slow.test.ts all of them in npm, pnpm and yarn projects installed from the tarballs",
  },
  {
    pattern: /evalgate compare --baseline \d{8}T/,
    reason:
      "names run ids from the demo's state directory (scripts/reliability-demo.ts); trials.test.ts compares two real runs",
  },
];

/** Commands whose documented outcome is not exit 0. */
const EXPECTED_EXIT: ReadonlyArray<{ readonly pattern: RegExp; readonly exit: number }> = [];

export interface DocCommand {
  readonly file: string;
  readonly command: string;
}

/** Shell commands in fenced `sh`/`bash`/`console` blocks, and `$ `-prefixed lines in unlabelled (output) blocks. */
export function docCommands(file: string, text: string): DocCommand[] {
  const commands: DocCommand[] = [];
  for (const block of text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```/gm)) {
    const lang = block[1]!.trim().split(/\s+/)[0] ?? "";
    if (!["sh", "bash", "shell", "console", ""].includes(lang)) continue;
    for (let line of block[2]!.replace(/\\\n\s*/g, " ").split("\n")) {
      line = line.trim();
      if ((lang === "" || lang === "console") && !line.startsWith("$ ")) continue;
      line = line
        .replace(/^\$ /, "")
        .replace(/\s+#\s.*$/, "")
        .trim();
      if (line === "" || line.startsWith("#")) continue;
      for (const part of line.split(" && ")) commands.push({ file, command: part.trim() });
    }
  }
  return commands;
}

/** `<!-- example-file: NAME -->` followed by a fenced block: NAME and the block's text. */
export function exampleFiles(text: string): Map<string, string> {
  return new Map(
    [...text.matchAll(/<!-- example-file: (\S+) -->\n```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => [m[1]!, m[2]!]),
  );
}

/**
 * `./scripts/evalgate` and `evalgate` run as `node apps/cli/dist/bin.js`: the script only puts the project's
 * toolchain first on PATH and execs that (about 1 s per call here without .toolchain/); the test of
 * machine-read output below runs the script itself.
 */
const evalgate = `${process.execPath} ${join(repo, "apps", "cli", "dist", "bin.js")}`;

const excludedBy = (command: string) => EXCLUDED.find((rule) => rule.pattern.test(command));
/** Exclusions that matched a docs or --help command: one that matches nothing is stale. */
const usedExclusions = new Set<(typeof EXCLUDED)[number]>();

/** A PATH without version-manager shims (they do not work in the sandbox): the toolchain's node and pnpm, then the system. */
function testPath(): string {
  const pnpmDir = (process.env.PATH ?? "").split(delimiter).find((dir) => existsSync(join(dir, "pnpm")));
  return [
    dirname(process.execPath),
    ...(pnpmDir === undefined ? [] : [pnpmDir]),
    "/usr/local/bin",
    "/usr/bin",
    "/bin",
  ].join(delimiter);
}

describe("example commands in README.md and docs/*.md", () => {
  let scratch: string;
  let env: NodeJS.ProcessEnv;
  const all = DOCS.flatMap((file) => docCommands(file, readFileSync(join(repo, file), "utf8")));

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "evalgate-docs-"));
    for (const file of DOCS)
      for (const [name, body] of exampleFiles(readFileSync(join(repo, file), "utf8")))
        writeFileSync(join(scratch, name), body);
    env = {
      PATH: testPath(),
      HOME: scratch,
      CI: "true",
      EVALGATE_BENCH_ROOT: join(repo, "bench"),
      EVALGATE_STATE_DIR: join(scratch, "state"),
      EVALGATE_TRUST_TIERS: join(repo, "docs", "trust-tiers.yaml"),
    };
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("finds the documented commands", () => {
    expect(all.length).toBeGreaterThan(5);
  });

  it(
    "runs every command not excluded, in page order, each with its documented exit code",
    { timeout: 300_000 },
    async () => {
      const failures: string[] = [];
      for (const { command } of all) if (excludedBy(command) !== undefined) usedExclusions.add(excludedBy(command)!);
      for (const { file, command } of all.filter((c) => excludedBy(c.command) === undefined)) {
        // As a reader would type it from the repository root, with the scratch directory as the cwd.
        const shell = command
          .replace(/^(\.\/scripts\/evalgate|evalgate)(?=\s|$)/, evalgate)
          .replace(/^pnpm (-s )?evalgate/, `pnpm $1--dir ${repo} evalgate`);
        const expected = EXPECTED_EXIT.find((rule) => rule.pattern.test(command))?.exit ?? 0;
        let code = 0;
        let output = "";
        try {
          const result = await run("sh", ["-c", shell], { cwd: scratch, env, maxBuffer: 16 * 1024 * 1024 });
          output = result.stderr;
        } catch (error) {
          const failed = error as { code: number; stderr: string };
          code = failed.code;
          output = failed.stderr;
        }
        if (code !== expected)
          failures.push(
            `${file}: \`${command}\` exited ${code}, documented ${expected}: ${output.trim().split("\n").at(-1)}`,
          );
      }
      expect(failures).toEqual([]);
    },
  );
});

describe("the examples in every command's --help", () => {
  async function help(args: string[]): Promise<string> {
    return (await run("sh", ["-c", `${evalgate} ${[...args, "--help"].join(" ")}`], { env: { PATH: testPath() } }))
      .stdout;
  }

  it(
    "each one runs against a temporary state directory, and no Details sentence is cut by a blank line",
    { timeout: 300_000 },
    async () => {
      const scratch = mkdtempSync(join(tmpdir(), "evalgate-help-"));
      try {
        for (const [name, body] of exampleFiles(readFileSync(join(repo, "docs", "runner.md"), "utf8")))
          writeFileSync(join(scratch, name), body);
        // `run` first: the other examples (promote-verdict, verify, cache stats) read the state it records.
        const commands = [...(await help([])).matchAll(/^\s+evalgate ([a-z-]+(?: [a-z-]+)?)/gm)]
          .map((m) => m[1]!.split(" "))
          .sort((a, b) => Number(b[0] === "run") - Number(a[0] === "run"));
        expect(commands.length).toBeGreaterThan(10);
        const pages = await Promise.all(commands.map((words) => help(words)));
        const env = {
          PATH: testPath(),
          HOME: scratch,
          CI: "true",
          EVALGATE_BENCH_ROOT: join(repo, "bench"),
          EVALGATE_STATE_DIR: join(scratch, "state"),
          EVALGATE_TRUST_TIERS: join(repo, "docs", "trust-tiers.yaml"),
        };
        const failures: string[] = [];
        for (const page of pages) {
          const details = page.split(/^Details$/m)[1]?.split(/^Examples$/m)[0] ?? "";
          for (const paragraph of details
            .split(/\n\s*\n/)
            .map((p) => p.trim())
            .filter((p) => p !== "")) {
            if (!/[.:)]$/.test(paragraph))
              failures.push(`a Details paragraph ends mid-sentence: "${paragraph.slice(-60)}"`);
          }
          for (const example of (page.split(/^Examples$/m)[1] ?? "").matchAll(/^\s+\$ evalgate (.*)$/gm)) {
            const command = example[1]!;
            if (excludedBy(`evalgate ${command}`) !== undefined) {
              usedExclusions.add(excludedBy(`evalgate ${command}`)!);
              continue;
            }
            try {
              await run("sh", ["-c", `${evalgate} ${command}`], { cwd: scratch, env, maxBuffer: 16 * 1024 * 1024 });
            } catch (error) {
              failures.push(
                `\`evalgate ${command}\` exited ${(error as { code: number }).code}: ${(error as { stderr: string }).stderr.trim().split("\n").at(-1)}`,
              );
            }
          }
        }
        expect(failures).toEqual([]);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  );
});

describe("machine-read output through pnpm", () => {
  it(
    "`pnpm -s evalgate` and ./scripts/evalgate put only JSON lines on stdout; plain `pnpm evalgate` adds pnpm's banner",
    { timeout: 60_000 },
    async () => {
      const state = mkdtempSync(join(tmpdir(), "evalgate-pnpm-"));
      try {
        const env = { PATH: testPath(), HOME: state, EVALGATE_STATE_DIR: state };
        const silent = await run("pnpm", ["-s", "evalgate", "verify"], { cwd: repo, env });
        const script = await run(join(repo, "scripts", "evalgate"), ["verify"], { cwd: repo, env });
        for (const stdout of [silent.stdout, script.stdout]) {
          const lines = stdout.split("\n").filter((line) => line !== "");
          expect(lines).toHaveLength(1);
          expect(JSON.parse(lines[0]!)).toMatchObject({ type: "verify", ok: true });
        }
        const loud = await run("pnpm", ["evalgate", "verify"], { cwd: repo, env });
        expect(loud.stdout).toMatch(/^\s*> .* evalgate/m);
      } finally {
        rmSync(state, { recursive: true, force: true });
      }
    },
  );
});

describe("the exclusion list", () => {
  it("has no stale entry: each one matched a command of the docs or of --help above", () => {
    const stale = EXCLUDED.filter((rule) => !usedExclusions.has(rule)).map((rule) => String(rule.pattern));
    expect(stale).toEqual([]);
  });
});
