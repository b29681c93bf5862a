// The README's set-up can be repeated: ./scripts/setup.sh run again changes nothing, and the dependency
// install it shares with test.sh (install_dependencies in toolchain.sh) takes a bench package added since
// the last install outside CI, and in CI refuses in one line naming a command that exists.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = join(import.meta.dirname, "..");
const toolchainPath = `${join(repo, ".toolchain", "node_modules", ".bin")}:${process.env.PATH}`;

async function gitState(): Promise<string> {
  const { stdout } = await run("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: repo });
  return stdout;
}

describe("./scripts/setup.sh run a second time", () => {
  it("succeeds and changes no tracked or untracked file", { timeout: 240_000 }, async () => {
    const lockfile = readFileSync(join(repo, "pnpm-lock.yaml"), "utf8");
    const before = await gitState();
    const { stderr } = await run(join(repo, "scripts", "setup.sh"), [], {
      cwd: repo,
      env: { ...process.env, PATH: toolchainPath },
    });
    expect(stderr).toMatch(/Already up to date/);
    expect(stderr).not.toMatch(/installing/);
    expect(stderr).toMatch(/evalgate: set up with Node v\d+/);
    expect(await gitState()).toBe(before);
    expect(readFileSync(join(repo, "pnpm-lock.yaml"), "utf8")).toBe(lockfile);
  });
});

/** What reaching the npm registry may need from the caller's environment (its cache, proxy, certificates). */
function registryAccess(): NodeJS.ProcessEnv {
  const names = ["HOME", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"];
  const wanted = new Set([...names, ...names.map((name) => name.toLowerCase())]);
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => wanted.has(name)));
}

describe("install_dependencies after a bench package was added", () => {
  let scratch: string;

  beforeAll(() => {
    // The workspace's manifests and lockfile only (what pnpm resolves from), plus one new bench package.
    scratch = mkdtempSync(join(tmpdir(), "evalgate-setup-"));
    for (const file of ["package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", "scripts/toolchain.sh"]) {
      mkdirSync(dirname(join(scratch, file)), { recursive: true });
      cpSync(join(repo, file), join(scratch, file));
    }
    for (const parent of ["packages", "apps", "bench"]) {
      for (const name of readdirSync(join(repo, parent)).filter((entry) =>
        existsSync(join(repo, parent, entry, "package.json")),
      )) {
        mkdirSync(join(scratch, parent, name), { recursive: true });
        cpSync(join(repo, parent, name, "package.json"), join(scratch, parent, name, "package.json"));
      }
    }
    writeFileSync(
      join(scratch, "scripts", "install.sh"),
      `. "$(dirname -- "$0")/toolchain.sh"\npnpm() { command pnpm "$@" --lockfile-only --prefer-offline; }\ncd "$EVALGATE_ROOT" && install_dependencies\n`,
    );
    mkdirSync(join(scratch, "bench", "added-class"));
    writeFileSync(
      join(scratch, "bench", "added-class", "package.json"),
      JSON.stringify({
        name: "@eval-bench/added-class",
        private: true,
        type: "module",
        dependencies: { "@eval/registry": "workspace:^" },
      }),
    );
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  // --lockfile-only --prefer-offline: the resolution step alone (no node_modules), from the metadata cache
  // where it holds a package and from the registry where it does not (a fresh machine's cache is empty).
  const install = (ci: boolean) =>
    run("sh", ["scripts/install.sh"], {
      cwd: scratch,
      env: { PATH: toolchainPath, ...registryAccess(), ...(ci ? { CI: "true" } : {}) },
    });

  it("in CI: refuses, in one line of its own that names ./scripts/setup.sh", { timeout: 120_000 }, async () => {
    const failure = await install(true).then(
      () => null,
      (error: { stderr: string }) => error,
    );
    expect(failure?.stderr).toContain("ERR_PNPM_OUTDATED_LOCKFILE");
    expect(failure?.stderr.trim().split("\n").at(-1)).toBe(
      "evalgate: pnpm-lock.yaml does not match a package.json (a package added or changed?): run ./scripts/setup.sh outside CI and commit pnpm-lock.yaml",
    );
  });

  it("outside CI: updates the lockfile with the new bench package", { timeout: 120_000 }, async () => {
    await install(false);
    expect(readFileSync(join(scratch, "pnpm-lock.yaml"), "utf8")).toMatch(/^ {2}bench\/added-class:\n/m);
  });
});
