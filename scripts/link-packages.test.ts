// The packages are not on a registry: the README says how to use them from another project today (link
// them from a built clone). This runs exactly the `pnpm` lines of that README section and of every package
// README's Install block, in a scratch project beside a link to this clone, then uses what they installed.
// Needs `pnpm build` first (scripts/test.sh builds before testing).
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = join(import.meta.dirname, "..");
/** The packages a user may link: every published one (the private test fixtures are not among them). */
const packageDirs = [...readdirSync(join(repo, "packages")).map((name) => `packages/${name}`), "apps/cli"].filter(
  (dir) =>
    (JSON.parse(readFileSync(join(repo, dir, "package.json"), "utf8")) as { private?: boolean }).private !== true,
);

/** The `pnpm ...` lines of the README section "Using the packages from another project". */
function readmeLines(): string[] {
  const section =
    readFileSync(join(repo, "README.md"), "utf8")
      .split(/^## Using the packages from another project\s*$/m)[1]
      ?.split(/^## /m)[0] ?? "";
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#\s.*$/, "").trim())
    .filter((line) => line.startsWith("pnpm "));
}

/** Each package README's `pnpm add ... link:...` line. */
function packageReadmeLines(): Map<string, string> {
  return new Map(
    packageDirs.map((dir) => [
      dir,
      /^pnpm add .*link:\S+$/m.exec(readFileSync(join(repo, dir, "README.md"), "utf8"))?.[0] ?? "",
    ]),
  );
}

describe("using the packages from another project (README)", () => {
  let scratch: string;
  let project: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "evalgate-link-"));
    symlinkSync(repo, join(scratch, "evalgate"));
    project = join(scratch, "my-project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-project", private: true, type: "module" }));
    env = { PATH: process.env.PATH, HOME: scratch, npm_config_store_dir: join(scratch, "store") };
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("every package README links its own directory, and keeps the registry line for later", () => {
    for (const [dir, line] of packageReadmeLines()) {
      expect(line, dir).toMatch(new RegExp(`^pnpm add (-D )?link:\\.\\./evalgate/${dir}$`));
      const name = (JSON.parse(readFileSync(join(repo, dir, "package.json"), "utf8")) as { name: string }).name;
      expect(readFileSync(join(repo, dir, "README.md"), "utf8"), dir).toContain(
        `# Once published: pnpm add ${line.includes(" -D ") ? "-D " : ""}${name}`,
      );
    }
  });

  it(
    "the README's commands link the packages, and each package then imports by name and the command runs",
    { timeout: 120_000 },
    async () => {
      const lines = readmeLines();
      expect(lines).toEqual([
        "pnpm add link:../evalgate/packages/runner",
        "pnpm add -D link:../evalgate/apps/cli",
        "pnpm exec evalgate --version",
      ]);
      for (const line of [...lines.slice(0, 2), ...packageReadmeLines().values()])
        await run("sh", ["-c", line], { cwd: project, env });
      const version = await run("sh", ["-c", lines[2]!], { cwd: project, env });
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
      const names = packageDirs
        .filter((dir) => dir !== "apps/cli")
        .map((dir) => (JSON.parse(readFileSync(join(repo, dir, "package.json"), "utf8")) as { name: string }).name);
      const check = `const names = ${JSON.stringify([...names, "evalgate"])}; for (const name of names) { const m = await import(name); if (Object.keys(m).length === 0) throw new Error(name); } console.log(names.length);`;
      const imported = await run(process.execPath, ["--input-type=module", "-e", check], { cwd: project, env });
      expect(Number(imported.stdout.trim())).toBe(packageDirs.length);
    },
  );
});
