import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SutInvocation } from "@eval/models";
import { sutCaseOf } from "@eval/models";
import { sandboxSupport } from "@eval/sandbox";
import { hostUidsOf } from "@eval/test-utils";
import { makeCase } from "./bench.test-helpers.ts";
import { commandSut, resolveProgram } from "./command-sut.ts";
import { canarySeedFor, SutAborted } from "./sut.ts";

const sandboxed = sandboxSupport().available;
let dir: string;
let invocation: (overrides?: Partial<SutInvocation>) => SutInvocation;
let expectedFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "evalgate-command-sut-"));
  writeFileSync(
    join(dir, "echo.mjs"),
    `import { readFileSync } from "node:fs";
     const request = JSON.parse(readFileSync(0, "utf8"));
     const mode = process.argv[2];
     if (mode === "fail") { console.error("first line\\nthe real reason"); process.exit(4); }
     if (mode === "garbage") { process.stdout.write("not json"); process.exit(0); }
     if (mode === "flood") { process.stdout.write("x".repeat(4096)); process.exit(0); }
     if (mode === "hang") { const { spawn } = await import("node:child_process"); spawn("sleep", ["30"], { stdio: "ignore" }); setInterval(() => {}, 1000); }
     else process.stdout.write(JSON.stringify({ cost_usd: 0.5, tag: process.env.EVALGATE_BENCH_INVOCATION_TAG, cwd: process.cwd(), seed: request.canary_seed, case_id: request.case.case_id, schema: request.schema_version, keys: Object.keys(request.case), env: Object.keys(process.env).sort() }));`,
  );
  // A SUT that cheats: it looks for the answers through the request, at the bench's known place
  // (it runs from the repository), and in the harness's state directory.
  writeFileSync(
    join(dir, "cheat.mjs"),
    `import { readFileSync } from "node:fs";
     const request = JSON.parse(readFileSync(0, "utf8"));
     const tries = [request.case.expected_path && request.case.expected_path + "/answer.txt", process.argv[2], process.argv[3]].filter(Boolean);
     const found = tries.map((path) => { try { return readFileSync(path, "utf8") } catch (error) { return error.code } });
     process.stdout.write(JSON.stringify({ found }));`,
  );
  const benchRoot = join(dir, "bench");
  const benchCase = await makeCase(join(benchRoot, "adversarial"), "sut-case");
  mkdirSync(benchCase.expected_path, { recursive: true });
  expectedFile = join(benchCase.expected_path, "answer.txt");
  writeFileSync(expectedFile, "THE ANSWER");
  mkdirSync(join(dir, ".evalgate", "cache"), { recursive: true });
  writeFileSync(join(dir, ".evalgate", "cache", "entry.json"), "a cached score");
  invocation = (overrides = {}) => ({
    benchCase: sutCaseOf(benchCase),
    workspacePath: mkdtempSync(join(tmpdir(), "evalgate-sut-ws-")),
    canarySeed: canarySeedFor(benchCase.cassette_canary_pin),
    signal: new AbortController().signal,
    timeoutMs: 5000,
    invocationTag: "bench:2026-01-01T00:00:00.000Z:adversarial:sut-case",
    ...overrides,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hide = () => [join(dir, "bench"), join(dir, ".evalgate")];

describe.each(sandboxed ? (["bwrap", "none"] as const) : (["none"] as const))("commandSut (sandbox %s)", (sandbox) => {
  it("sends a SutRequest (v2: no path into the bench) on stdin, runs in the workspace with the invocation tag, returns its JSON", async () => {
    const sut = commandSut([process.execPath, "echo.mjs"], { cwd: dir, sandbox, hide: hide() });
    const call = invocation();
    const output = await sut.run(call);
    expect(output).toMatchObject({
      cost_usd: 0.5,
      tag: call.invocationTag,
      seed: call.canarySeed,
      case_id: "sut-case",
      schema: "evalgate.sut_request.v2",
    });
    expect(output.keys).not.toEqual(expect.arrayContaining(["expected_path"]));
    for (const key of ["case_path", "input_path", "expected_path", "cassette_path"])
      expect(output.keys).not.toContain(key);
    expect(output.cwd).toBe(call.workspacePath);
    expect(sut.label).toBe(`command:${process.execPath} echo.mjs`);
    expect(sut.isolation).toBe(sandbox === "bwrap" ? "bwrap" : "process");
    // In the sandbox the environment is an allowlist, none of the harness's.
    if (sandbox === "bwrap")
      expect(output.env).toEqual(["EVALGATE_BENCH_INVOCATION_TAG", "HOME", "LANG", "PATH", "PWD", "TMPDIR", "TZ"]);
  });

  it("reports a non-zero exit with the last stderr line, invalid JSON, an overlong stdout", async () => {
    const options = { cwd: dir, sandbox, hide: hide() };
    await expect(commandSut([process.execPath, "echo.mjs", "fail"], options).run(invocation())).rejects.toThrow(
      "exited 4: the real reason",
    );
    await expect(commandSut([process.execPath, "echo.mjs", "garbage"], options).run(invocation())).rejects.toThrow(
      /not one JSON document/,
    );
    await expect(
      commandSut([process.execPath, "echo.mjs", "flood"], { ...options, maxStdoutBytes: 100 }).run(invocation()),
    ).rejects.toThrow(/exceeded 100 bytes/);
  });

  it("kills its whole process group on abort", async () => {
    const controller = new AbortController();
    const sut = commandSut([process.execPath, "echo.mjs", "hang"], { cwd: dir, sandbox, hide: hide() });
    const running = sut.run(invocation({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 500);
    await expect(running).rejects.toBeInstanceOf(SutAborted);
    const aborted = new AbortController();
    aborted.abort();
    await expect(sut.run(invocation({ signal: aborted.signal }))).rejects.toBeInstanceOf(SutAborted);
  });
});

describe("a cheating SUT", () => {
  it.runIf(sandboxed)(
    "in the sandbox finds no answer: no expected_path, the bench and the state directory never shown",
    async () => {
      // It knows where the bench and the state are (it was written for this repository) and tries them.
      writeFileSync(
        join(dir, "cheat-known.mjs"),
        readFileSync(join(dir, "cheat.mjs"), "utf8").replace(
          "process.argv[2], process.argv[3]",
          `${JSON.stringify(expectedFile)}, ${JSON.stringify(join(dir, ".evalgate", "cache", "entry.json"))}`,
        ),
      );
      const sut = commandSut([process.execPath, "cheat-known.mjs"], { cwd: dir, hide: hide() });
      expect((await sut.run(invocation())).found).toEqual(["ENOENT", "ENOENT"]);
      // Naming an answer file in argv does not show it either: such a SUT is refused.
      expect(() => commandSut([process.execPath, "cheat.mjs", expectedFile], { cwd: dir, hide: hide() })).toThrow(
        /must never see/,
      );
    },
  );

  it.runIf(sandboxed)(
    "run from a repository does not see its .git, nor files beside its script there (red-team finding)",
    async () => {
      const repo = join(dir, "repo");
      mkdirSync(join(repo, ".git"), { recursive: true });
      writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
      writeFileSync(join(repo, "secret.txt"), "beside the script");
      writeFileSync(
        join(repo, "reader.mjs"),
        `import { readFileSync } from "node:fs"; JSON.parse(readFileSync(0, "utf8")); const read = (p) => { try { return readFileSync(p, "utf8") } catch (e) { return e.code } }; process.stdout.write(JSON.stringify({ git: read(${JSON.stringify(join(repo, ".git", "HEAD"))}), sibling: read(${JSON.stringify(join(repo, "secret.txt"))}) }));`,
      );
      expect(await commandSut([process.execPath, "reader.mjs"], { cwd: repo, hide: hide() }).run(invocation())).toEqual(
        { git: "ENOENT", sibling: "ENOENT" },
      );
      // Without the sandbox, both are there: the attack is real.
      expect(
        await commandSut([process.execPath, "reader.mjs"], { cwd: repo, sandbox: "none" }).run(invocation()),
      ).toEqual({ git: "ref: refs/heads/main\n", sibling: "beside the script" });
      // A script in a clean directory keeps its directory (its own modules), and --sut-read adds a path.
      expect(
        await commandSut([process.execPath, "reader.mjs"], {
          cwd: repo,
          hide: hide(),
          readable: [join(repo, "secret.txt")],
        }).run(invocation()),
      ).toMatchObject({ sibling: "beside the script" });
    },
  );

  it("refuses a SUT whose script lies inside the bench or the state directory (red-team finding: run from below the bench)", () => {
    writeFileSync(join(dir, "bench", "inside.mjs"), "");
    if (sandboxed)
      expect(() =>
        commandSut([process.execPath, join(dir, "bench", "inside.mjs")], { cwd: dir, hide: hide() }),
      ).toThrow(/lies inside .*bench.*must never see/);
    expect(() =>
      commandSut([process.execPath, "x.mjs"], {
        cwd: dir,
        hide: hide(),
        readable: [join(dir, "bench", "adversarial")],
      }),
    ).toThrow(/--sut-read .* overlaps/);
  });

  it("without the sandbox (--sandbox none) reads the answers at their known place: why the sandbox is the default", async () => {
    const sut = commandSut([process.execPath, "cheat.mjs", expectedFile], { cwd: dir, sandbox: "none" });
    expect((await sut.run(invocation())).found).toEqual(["THE ANSWER"]);
  });
});

describe.runIf(sandboxed)("a script's directory is shown only when it is private", () => {
  // The script reads a file beside it and lists its directory: what the sandbox shows of where it lives.
  const looker = (sibling: string) =>
    `import { readFileSync, readdirSync } from "node:fs"; import { dirname } from "node:path"; import { fileURLToPath } from "node:url";
     readFileSync(0, "utf8");
     const here = dirname(fileURLToPath(import.meta.url));
     let sibling; try { sibling = readFileSync(${JSON.stringify(sibling)}, "utf8") } catch (e) { sibling = e.code }
     process.stdout.write(JSON.stringify({ sibling, listed: readdirSync(here).length, names: readdirSync(here) }));`;

  it("a script in the system temp directory sees nothing else there (only itself)", async () => {
    const sibling = join(tmpdir(), `evalgate-sibling-${process.pid}.txt`);
    const script = join(tmpdir(), `evalgate-looker-${process.pid}.mjs`);
    writeFileSync(sibling, "another run's file");
    writeFileSync(script, looker(sibling));
    try {
      // The bench and state directories lie elsewhere (as they usually do): nothing else hides /tmp.
      const request = invocation();
      const seen = await commandSut([process.execPath, script], {
        cwd: dir,
        hide: ["/nonexistent/bench", "/nonexistent/state"],
      }).run(request);
      expect(seen.sibling).toBe("ENOENT");
      // Itself, and only the directories on the way to what the sandbox binds: its workspace (made in the temp
      // directory by this test) and, when the toolchain lives under the temp directory (a clone in /tmp), node.
      expect(seen.names).toEqual(expect.arrayContaining([`evalgate-looker-${process.pid}.mjs`]));
      const bound = [request.workspacePath, process.execPath]
        .map((path) => relative(tmpdir(), path))
        .filter((rel) => !rel.startsWith(".."));
      const allowed = new Set([`evalgate-looker-${process.pid}.mjs`, ...bound.map((rel) => rel.split(sep)[0]!)]);
      expect((seen.names as string[]).filter((name) => !allowed.has(name))).toEqual([]);
    } finally {
      rmSync(sibling, { force: true });
      rmSync(script, { force: true });
    }
  });

  it("a directory holding a socket is not shown: the script alone is", async () => {
    const { createServer } = await import("node:net");
    const holder = mkdtempSync(join(tmpdir(), "evalgate-sockdir-"));
    chmodSync(holder, 0o755);
    writeFileSync(join(holder, "beside.txt"), "beside the socket");
    writeFileSync(join(holder, "looker.mjs"), looker(join(holder, "beside.txt")));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(holder, "agent.sock"), resolve));
    try {
      expect(
        await commandSut([process.execPath, join(holder, "looker.mjs")], { cwd: dir, hide: hide() }).run(invocation()),
      ).toMatchObject({ sibling: "ENOENT", listed: 1 });
    } finally {
      server.close();
      rmSync(holder, { recursive: true, force: true });
    }
  });

  it("a private directory (its own files only) is shown whole: the script's own modules import", async () => {
    const own = mkdtempSync(join(tmpdir(), "evalgate-own-"));
    chmodSync(own, 0o755);
    writeFileSync(join(own, "data.txt"), "mine");
    writeFileSync(join(own, "looker.mjs"), looker(join(own, "data.txt")));
    try {
      expect(
        await commandSut([process.execPath, join(own, "looker.mjs")], { cwd: dir, hide: hide() }).run(invocation()),
      ).toMatchObject({ sibling: "mine", listed: 2 });
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it.runIf(process.getuid?.() === 0)(
    "as root, a script in a 0700 directory (mktemp -d) starts (its copy is shown), and a directory with another user's file is not shown",
    async () => {
      const locked = mkdtempSync(join(tmpdir(), "evalgate-0700-"));
      writeFileSync(join(locked, "echo.mjs"), readFileSync(join(dir, "echo.mjs"), "utf8"));
      writeFileSync(join(locked, "theirs.txt"), "another user's");
      writeFileSync(join(locked, "looker.mjs"), looker(join(locked, "theirs.txt")));
      try {
        expect(
          await commandSut([process.execPath, join(locked, "echo.mjs")], { cwd: dir, hide: hide() }).run(invocation()),
        ).toMatchObject({ case_id: "sut-case" });
        chmodSync(locked, 0o755);
        chownSync(join(locked, "theirs.txt"), 65534, 65534);
        expect(
          await commandSut([process.execPath, join(locked, "looker.mjs")], { cwd: dir, hide: hide() }).run(
            invocation(),
          ),
        ).toMatchObject({ sibling: "ENOENT", listed: 1 });
      } finally {
        rmSync(locked, { recursive: true, force: true });
      }
    },
  );
});

describe.runIf(process.getuid?.() === 0)("a command: SUT, evalgate running as root", () => {
  // It opens a host-wide sysctl for writing, names itself for the host to find, then waits.
  const probe = (comm: string) =>
    `import { openSync, closeSync, readFileSync, writeFileSync } from "node:fs";
     readFileSync(0, "utf8");
     let sysctl; try { closeSync(openSync("/proc/sys/kernel/core_uses_pid", "r+")); sysctl = "opened" } catch (e) { sysctl = e.code }
     writeFileSync("/proc/self/comm", ${JSON.stringify(comm)});
     setTimeout(() => process.stdout.write(JSON.stringify({ sysctl })), 3000);`;

  it.each(sandboxed ? (["none", "bwrap"] as const) : (["none"] as const))(
    "with --sandbox %s: host uid 0 and /proc/sys writable only without the sandbox",
    async (sandbox) => {
      const comm = `sutuid${sandbox}${process.pid % 1000}`;
      writeFileSync(join(dir, `probe-${sandbox}.mjs`), probe(comm));
      const running = commandSut([process.execPath, `probe-${sandbox}.mjs`], { cwd: dir, sandbox, hide: hide() }).run(
        invocation({ timeoutMs: 20_000 }),
      );
      const uids = await hostUidsOf(comm);
      const output = await running;
      if (sandbox === "none") {
        expect(output).toEqual({ sysctl: "opened" });
        expect(uids).toEqual([0, 0, 0, 0]);
      } else {
        expect(output.sysctl).toMatch(/^(EROFS|EACCES)$/);
        expect(uids?.every((uid) => uid !== 0)).toBe(true);
      }
    },
    60_000,
  );
});

describe("commandSut digests and programs", () => {
  it("digests the program found on PATH by content, and each file argument", () => {
    const bin = join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "fixer"), "#!/bin/sh\necho '{}'\n", { mode: 0o755 });
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    const before = commandSut(["fixer"], { cwd: dir, env, sandbox: "none" }).digest;
    expect(commandSut(["fixer"], { cwd: dir, env, sandbox: "none" }).digest).toBe(before);
    // The program replaced under the same name: a different SUT, so no cached score carries over.
    writeFileSync(join(bin, "fixer"), "#!/bin/sh\necho '{\"cheat\":1}'\n", { mode: 0o755 });
    expect(commandSut(["fixer"], { cwd: dir, env, sandbox: "none" }).digest).not.toBe(before);
    expect(resolveProgram("fixer", dir, env.PATH)).toBe(join(bin, "fixer"));
    const script = commandSut([process.execPath, "echo.mjs"], { cwd: dir, sandbox: "none" }).digest;
    writeFileSync(join(dir, "copy.mjs"), "// other\n");
    expect(commandSut([process.execPath, "copy.mjs"], { cwd: dir, sandbox: "none" }).digest).not.toBe(script);
    expect(commandSut([process.execPath], { digest: "blake3:given", sandbox: "none" }).digest).toBe("blake3:given");
  });

  it("refuses a program that does not exist, or no program, at once", () => {
    expect(() => commandSut(["/nonexistent/program"], { sandbox: "none" })).toThrow(/is not an executable file/);
    expect(() => commandSut(["no-such-program-here"], { sandbox: "none" })).toThrow(/not an executable file on PATH/);
    expect(() => commandSut([])).toThrow(/needs a program/);
    expect(resolveProgram("no-such-program-here", dir, "")).toBeNull();
  });
});
