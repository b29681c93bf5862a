// Attacks on the sandbox, each written as what an untrusted rubric, SUT or agent would try. Each runs a
// real process in a real bubblewrap sandbox and asserts the attempt fails.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  nodeInstallDir,
  probeSandbox,
  probeSandboxAsync,
  programFootprint,
  realOrSelf,
  sandboxArgv,
  sandboxSupport,
  sandboxSupportAsync,
} from "./bwrap.ts";
import type { SandboxPolicy } from "./bwrap.ts";
import { runProcess } from "./process-runner.ts";
import { hostUidsOf } from "@eval/test-utils";

const support = sandboxSupport();
if (!support.available) console.warn(`sandbox tests skipped: ${support.reason}`);

let root: string;
let work: string;
let secretDir: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "sandbox-test-"));
  work = join(root, "work");
  secretDir = join(root, "secret");
  mkdirSync(work);
  mkdirSync(secretDir);
  writeFileSync(join(secretDir, "answer.txt"), "the expected answer");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs a Node script inside the sandbox with `work` writable; resolves its stdout (trimmed). */
async function inSandbox(
  script: string,
  policy: SandboxPolicy = {},
  env: Record<string, string> = {},
): Promise<{ stdout: string; exitCode: number | null; stderr: string }> {
  const outcome = await runProcess({
    command: process.execPath,
    args: ["-e", script],
    cwd: work,
    env: { PATH: "/usr/bin:/bin", ...env },
    timeoutMs: 15_000,
    graceMs: 500,
    sandbox: {
      readOnly: [nodeInstallDir(), ...(policy.readOnly ?? [])],
      writable: [work, ...(policy.writable ?? [])],
      ...(policy.hidden === undefined ? {} : { hidden: policy.hidden }),
      ...(policy.network === undefined ? {} : { network: policy.network }),
      ...(policy.binds === undefined ? {} : { binds: policy.binds }),
      ...(policy.chdir === undefined ? {} : { chdir: policy.chdir }),
    },
  });
  return { stdout: outcome.stdout.toString("utf8").trim(), exitCode: outcome.exitCode, stderr: outcome.stderr };
}

const tryRead = (path: string): string =>
  `try { console.log(require("fs").readFileSync(${JSON.stringify(path)}, "utf8")) } catch (e) { console.log(e.code) }`;

describe.skipIf(!support.available)("the bubblewrap sandbox, attacked", () => {
  it("runs a program and returns its output and exit code", async () => {
    const result = await inSandbox('console.log("hello"); process.exit(3)');
    expect(result).toMatchObject({ stdout: "hello", exitCode: 3 });
  });

  it("a host file outside the policy does not exist inside (the answers, the harness's state)", async () => {
    expect((await inSandbox(tryRead(join(secretDir, "answer.txt")))).stdout).toBe("ENOENT");
    expect((await inSandbox(tryRead("/root/.bashrc"))).stdout).toBe("ENOENT");
    expect((await inSandbox(tryRead("/etc/shadow"))).stdout).toBe("ENOENT");
  });

  it("a hidden directory is empty, and a path named below it shows again", async () => {
    const bench = join(root, "bench");
    mkdirSync(join(bench, "cases", "a", "expected"), { recursive: true });
    mkdirSync(join(bench, "cases", "b", "expected"), { recursive: true });
    writeFileSync(join(bench, "rubric.ts"), "rubric");
    writeFileSync(join(bench, "cases", "a", "expected", "x"), "answer a");
    writeFileSync(join(bench, "cases", "b", "expected", "x"), "answer b");
    const policy = { readOnly: [bench, join(bench, "cases", "a")], hidden: [join(bench, "cases")] };
    const script = `const fs = require("fs"); console.log(JSON.stringify([fs.readFileSync(${JSON.stringify(join(bench, "rubric.ts"))}, "utf8"), fs.readdirSync(${JSON.stringify(join(bench, "cases"))}), fs.readFileSync(${JSON.stringify(join(bench, "cases", "a", "expected", "x"))}, "utf8")]))`;
    expect(JSON.parse((await inSandbox(script, policy)).stdout)).toEqual(["rubric", ["a"], "answer a"]);
    expect((await inSandbox(tryRead(join(bench, "cases", "b", "expected", "x")), policy)).stdout).toBe("ENOENT");
  });

  it("read-only paths cannot be written; the writable one can", async () => {
    const readOnly = join(root, "ro");
    mkdirSync(readOnly);
    const script = `const fs = require("fs"); for (const p of [${JSON.stringify(join(readOnly, "x"))}, "/usr/evil", ${JSON.stringify(join(work, "ok"))}]) { try { fs.writeFileSync(p, "x"); console.log("wrote") } catch (e) { console.log(e.code) } }`;
    expect((await inSandbox(script, { readOnly: [readOnly] })).stdout.split("\n")).toEqual(["EROFS", "EROFS", "wrote"]);
    expect(existsSync(join(readOnly, "x"))).toBe(false);
  });

  it("a bind shows a host directory at another path (writable unless read-only); the host path itself stays invisible", async () => {
    const shown = join(root, "shown");
    mkdirSync(shown);
    writeFileSync(join(shown, "in.txt"), "inside");
    const script = `const fs = require("fs"); console.log(fs.readFileSync("/workspace/in.txt", "utf8")); fs.writeFileSync("/workspace/out.txt", "x"); try { fs.writeFileSync("/config/x", "x"); console.log("wrote") } catch (e) { console.log(e.code) } console.log(fs.existsSync(${JSON.stringify(shown)})); console.log(process.cwd())`;
    const result = await inSandbox(script, {
      binds: [
        { source: shown, target: "/workspace" },
        { source: secretDir, target: "/config", readOnly: true },
      ],
      chdir: "/workspace",
    });
    expect(result.stdout.split("\n")).toEqual(["inside", "EROFS", "false", "/workspace"]);
    expect(existsSync(join(shown, "out.txt"))).toBe(true);
  });

  describe("no network, no host sockets", () => {
    let server: Server;
    let port: number;
    const socketDir = () => join(root, "sockets");
    beforeAll(async () => {
      server = createServer((socket) => socket.end("hello from the host\n"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const connect = (target: string) =>
      `const net = require("net"); const s = net.connect(${target}); s.on("data", (d) => { console.log("connected"); process.exit(0) }); s.on("error", (e) => { console.log(e.code); process.exit(0) }); setTimeout(() => { console.log("timeout"); process.exit(0) }, 3000)`;

    it("cannot reach a TCP server on the host's loopback", async () => {
      const outside = await runProcess({
        command: process.execPath,
        args: ["-e", connect(String(port))],
        cwd: work,
        env: {},
        timeoutMs: 10_000,
      });
      expect(outside.stdout.toString().trim()).toBe("connected");
      expect((await inSandbox(connect(String(port)))).stdout).toMatch(/^(ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL)$/);
    });

    it("cannot connect to a host unix socket (none is visible), nor an abstract one (own network namespace)", async () => {
      mkdirSync(socketDir(), { recursive: true });
      const path = join(socketDir(), "host.sock");
      const unix = createServer((socket) => socket.end("hi\n"));
      await new Promise<void>((resolve) => unix.listen(path, resolve));
      const abstract = createServer((socket) => socket.end("hi\n"));
      await new Promise<void>((resolve) => abstract.listen("\0evalgate-test-abstract", resolve));
      try {
        const outside = await runProcess({
          command: process.execPath,
          args: ["-e", connect(JSON.stringify(path))],
          cwd: work,
          env: {},
          timeoutMs: 10_000,
        });
        expect(outside.stdout.toString().trim()).toBe("connected");
        expect((await inSandbox(connect(JSON.stringify(path)))).stdout).toBe("ENOENT");
        expect((await inSandbox(connect(JSON.stringify("\0evalgate-test-abstract")))).stdout).toBe("ECONNREFUSED");
      } finally {
        unix.close();
        abstract.close();
      }
    });

    it("with network: true, the host's network is there (an agent calling its API)", async () => {
      expect((await inSandbox(connect(String(port)), { network: true })).stdout).toBe("connected");
    });
  });

  it("sees no host process: cannot read the harness's environment through /proc, cannot signal it", async () => {
    process.env.EVALGATE_SANDBOX_TEST_SECRET = "hunter2";
    try {
      const script = `const fs = require("fs"); const pids = fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p)); let env = "none"; try { env = fs.readFileSync("/proc/${process.pid}/environ", "utf8") } catch (e) { env = e.code } let kill; try { process.kill(${process.pid}, "SIGKILL"); kill = "sent" } catch (e) { kill = e.code } console.log(JSON.stringify({ pids: pids.length, env, kill, mine: JSON.stringify(process.env) }))`;
      const result = JSON.parse((await inSandbox(script)).stdout) as {
        pids: number;
        env: string;
        kill: string;
        mine: string;
      };
      expect(result.pids).toBeLessThanOrEqual(3);
      expect(result.env).toBe("ENOENT");
      expect(result.kill).toBe("ESRCH");
      expect(result.mine).not.toContain("hunter2");
    } finally {
      delete process.env.EVALGATE_SANDBOX_TEST_SECRET;
    }
  });

  it("gets exactly the environment it is given (bwrap adds only PWD)", async () => {
    const result = await inSandbox("console.log(JSON.stringify(process.env))", {}, { ONLY: "this" });
    expect(JSON.parse(result.stdout)).toEqual({ PATH: "/usr/bin:/bin", ONLY: "this", PWD: work });
  });

  it("a setsid daemon does not outlive its sandbox", async () => {
    const marker = join(work, "daemon-alive");
    // The daemon leaves the process group and the session, then touches the marker every 100 ms.
    const script = `const { spawn } = require("child_process"); spawn("/bin/sh", ["-c", "while true; do date +%s%N > ${marker}; sleep 0.1; done"], { detached: true, stdio: "ignore" }).unref(); setTimeout(() => process.exit(0), 300)`;
    await inSandbox(script);
    expect(existsSync(marker)).toBe(true);
    const before = readFileSync(marker, "utf8");
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(readFileSync(marker, "utf8")).toBe(before);
    expect(statSync(marker).isFile()).toBe(true);
  });

  it("is killed at its deadline with everything it started", async () => {
    const started = performance.now();
    const outcome = await runProcess({
      command: "/bin/sh",
      args: ["-c", "trap '' TERM; sleep 60 & sleep 60"],
      cwd: work,
      env: {},
      timeoutMs: 300,
      graceMs: 300,
      sandbox: { writable: [work] },
    });
    expect(outcome.timedOut).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  describe("never host root (whatever uid evalgate runs as)", () => {
    it("runs as an unprivileged host uid, seen from the host's /proc", async () => {
      const comm = `uidprobe${process.pid % 100000}`;
      const running = inSandbox(
        `require("fs").writeFileSync("/proc/self/comm", ${JSON.stringify(comm)}); setTimeout(() => {}, 3000)`,
      );
      const uids = await hostUidsOf(comm);
      await running;
      expect(uids).not.toBeNull();
      for (const uid of uids ?? []) expect(uid).not.toBe(0);
    });

    it("cannot open /proc/sys for writing (kernel.core_uses_pid)", async () => {
      const script = `try { require("fs").closeSync(require("fs").openSync("/proc/sys/kernel/core_uses_pid", "r+")); console.log("opened") } catch (e) { console.log(e.code) }`;
      expect((await inSandbox(script)).stdout).toMatch(/^(EROFS|EACCES|EPERM)$/);
    });

    it.runIf(process.arch === "x64" && existsSync("/usr/bin/python3"))(
      "runs under a seccomp filter: keyctl, ptrace, mount and module syscalls fail with EPERM",
      async () => {
        // x86_64 numbers: keyctl 250, ptrace 101 (PTRACE_TRACEME), mount 165, init_module 175, finit_module 313.
        const probe = [
          "import ctypes, json",
          "libc = ctypes.CDLL(None, use_errno=True)",
          "def call(*args):",
          "    r = libc.syscall(*args)",
          "    return 'ok' if r >= 0 else ctypes.get_errno()",
          "status = open('/proc/self/status').read()",
          "print(json.dumps({'seccomp': [l.split()[1] for l in status.splitlines() if l.startswith('Seccomp:')][0],",
          "  'keyctl': call(250, 0, ctypes.c_long(-3), 0), 'ptrace': call(101, 0, 0, 0, 0),",
          "  'mount': call(165, b'none', b'/tmp', b'tmpfs', 0, None), 'finit_module': call(313, -1, b'', 0)}))",
        ].join("\n");
        const outcome = await runProcess({
          command: "/usr/bin/python3",
          args: ["-c", probe],
          cwd: work,
          env: {},
          timeoutMs: 15_000,
          sandbox: { writable: [work] },
        });
        expect(JSON.parse(outcome.stdout.toString("utf8"))).toEqual({
          seccomp: "2",
          keyctl: 1,
          ptrace: 1,
          mount: 1,
          finit_module: 1,
        });
      },
    );

    it.runIf(process.getuid?.() === 0)(
      "run by an ordinary user (a scratch user the test creates), also an unprivileged uid, /proc/sys read-only",
      async () => {
        const user = "evalgate-sbx-test";
        if (spawnSync("id", ["-u", user]).status !== 0)
          expect(spawnSync("useradd", ["--no-create-home", user]).status).toBe(0);
        const uid = Number(spawnSync("id", ["-u", user], { encoding: "utf8" }).stdout.trim());
        const dir = mkdtempSync(join(tmpdir(), "sandbox-user-"));
        chmodSync(dir, 0o777);
        const comm = `userprobe${process.pid % 100000}`;
        const script = `import { runProcess, nodeInstallDir } from ${JSON.stringify(join(import.meta.dirname, "index.ts"))};
        const probe = 'let w; try { require("fs").openSync("/proc/sys/kernel/core_uses_pid", "r+"); w = "opened" } catch (e) { w = e.code } require("fs").writeFileSync("/proc/self/comm", ${JSON.stringify(comm)}); setTimeout(() => console.log(w), 3000)';
        const o = await runProcess({ command: process.execPath, args: ["-e", probe], cwd: ${JSON.stringify(dir)}, env: {}, timeoutMs: 20000, sandbox: { readOnly: [nodeInstallDir()], writable: [${JSON.stringify(dir)}] } });
        console.log(o.stdout.toString().trim() || o.stderr);`;
        const running = new Promise<string>((resolve) => {
          const child = spawn(
            "/usr/bin/setpriv",
            [
              `--reuid=${uid}`,
              `--regid=${uid}`,
              "--clear-groups",
              "--",
              process.execPath,
              "--conditions=@eval/source",
              "--input-type=module",
              "-e",
              script,
            ],
            { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
          );
          let out = "";
          child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
          child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
          child.on("close", () => resolve(out.trim()));
        });
        const uids = await hostUidsOf(comm);
        const said = await running;
        rmSync(dir, { recursive: true, force: true });
        expect(said).toMatch(/^(EROFS|EACCES)$/);
        expect(uids).toEqual([uid, uid, uid, uid]);
      },
    );

    it("still runs Node (what the agent CLIs are) and a native binary", async () => {
      expect((await inSandbox('console.log(require("os").userInfo().uid !== undefined ? "node ok" : "")')).stdout).toBe(
        "node ok",
      );
      const outcome = await runProcess({
        command: "/bin/sh",
        args: ["-c", "echo native ok > out.txt; cat out.txt"],
        cwd: work,
        env: {},
        timeoutMs: 15_000,
        sandbox: { writable: [work] },
      });
      expect(outcome.stdout.toString("utf8").trim()).toBe("native ok");
    });
  });

  it("builds the argv it documents: namespaces, no network by default, cwd and a clean environment", () => {
    const argv = sandboxArgv({ readOnly: ["/usr/share"], writable: [work] }, ["/bin/true"], {
      cwd: work,
      env: { A: "1" },
    });
    const root = process.getuid?.() === 0;
    // As root no user namespace (it would map the sandbox to host uid 0): setpriv drops to nobody instead.
    expect(argv.slice(0, 2)).toEqual([
      support.available ? support.bwrap : "",
      root ? "--unshare-pid" : "--unshare-all",
    ]);
    expect(argv).not.toContain("--share-net");
    expect(argv).toEqual(
      expect.arrayContaining([
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--chdir",
        ...(root ? ["--unshare-net", "--reuid=65534"] : []),
      ]),
    );
    expect(argv.slice(argv.indexOf("--seccomp"), argv.indexOf("--seccomp") + 3)).toEqual(["--seccomp", "3", "--"]);
    expect(argv.at(-1)).toBe("/bin/true");
  });
});

describe("SandboxUnavailable", () => {
  it("says in one line what cannot run and how to get the sandbox or opt out", async () => {
    const { SandboxUnavailable } = await import("./errors.ts");
    const error = new SandboxUnavailable("the rubric", "bubblewrap (bwrap) is not installed");
    expect(error).toMatchObject({
      code: "EVAL_SANDBOX_UNAVAILABLE",
      message: "cannot sandbox the rubric: bubblewrap (bwrap) is not installed",
    });
    expect(error.hint).toMatch(/apt-get install bubblewrap.*--sandbox none/);
    expect(error.message).not.toContain("\n");
  });

  it("names the fix for the reason given, runnable as this user", async () => {
    const { SandboxUnavailable } = await import("./errors.ts");
    const sudo = process.getuid?.() === 0 ? "" : "sudo ";
    expect(new SandboxUnavailable("the rubric", "setpriv (util-linux) is not installed: ...").hint).toContain(
      `\`${sudo}apt-get install util-linux\``,
    );
    const userns = new SandboxUnavailable(
      "the rubric",
      "bubblewrap cannot create its namespaces here (bwrap: setting up uid map: Permission denied)",
    ).hint;
    expect(userns).toContain(`\`${sudo}sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\``);
    expect(userns).not.toContain("install bubblewrap");
    for (const hint of [userns, new SandboxUnavailable("x", "bubblewrap (bwrap) is not installed").hint]) {
      expect(hint).toMatch(/--sandbox none/);
      expect(hint).not.toContain("\n");
      expect(hint).not.toContain("scripts/setup.sh");
    }
  });
});

describe("probing for the sandbox", () => {
  const tools = { bwrap: ["/usr/bin/bwrap"], setpriv: ["/usr/bin/setpriv"], arch: process.arch };
  it("no bubblewrap, no setpriv as root, no filter for the architecture, a bwrap that fails: each unavailable, saying why", () => {
    expect(probeSandbox({ ...tools, bwrap: [join(tmpdir(), "no-such-bwrap")] })).toEqual({
      available: false,
      reason: "bubblewrap (bwrap) is not installed",
    });
    if (process.getuid?.() === 0)
      expect(probeSandbox({ ...tools, setpriv: [] })).toMatchObject({
        available: false,
        reason: expect.stringMatching(/^setpriv \(util-linux\) is not installed/),
      });
    expect(probeSandbox({ ...tools, arch: "mips" })).toEqual({
      available: false,
      reason: "no seccomp filter for the mips architecture",
    });
    // "exit 1"; on a machine loaded enough for the probe's 10 s timeout, the spawn error instead.
    expect(probeSandbox({ ...tools, bwrap: ["/bin/false"] })).toMatchObject({
      available: false,
      reason: expect.stringMatching(/^bubblewrap cannot create its namespaces here \((exit 1|.*ETIMEDOUT)\)$/),
    });
    expect(probeSandbox({ ...tools, bwrap: ["/bin/sh"] })).toMatchObject({
      available: false,
      reason: expect.stringMatching(/^bubblewrap cannot create its namespaces here \((\/bin\/sh: .*--|.*ETIMEDOUT)/),
    });
  });

  it("the probe without blocking says what the blocking one says, for each way it can fail and for this machine", async () => {
    for (const variant of [
      { ...tools, bwrap: [join(tmpdir(), "no-such-bwrap")] },
      { ...tools, arch: "mips" },
      ...(process.getuid?.() === 0 ? [{ ...tools, setpriv: [] }] : []),
    ])
      expect(await probeSandboxAsync(variant)).toEqual(probeSandbox(variant));
    expect(await probeSandboxAsync({ ...tools, bwrap: ["/bin/false"] })).toMatchObject({
      available: false,
      reason: expect.stringMatching(/^bubblewrap cannot create its namespaces here \((exit 1|exit SIGTERM)\)$/),
    });
    expect(await probeSandboxAsync({ ...tools, bwrap: ["/bin/sh"] })).toMatchObject({
      available: false,
      reason: expect.stringMatching(/^bubblewrap cannot create its namespaces here \((\/bin\/sh: .*--|exit SIGTERM)/),
    });
    // A program that cannot be started at all (not executable): the spawn error is the reason.
    const notExecutable = join(mkdtempSync(join(tmpdir(), "evalgate-probe-")), "bwrap");
    writeFileSync(notExecutable, "", { mode: 0o644 });
    expect(await probeSandboxAsync({ ...tools, bwrap: [notExecutable] })).toMatchObject({
      available: false,
      reason: expect.stringMatching(/^bubblewrap cannot create its namespaces here \(.*EACCES/),
    });
    expect(await probeSandboxAsync()).toEqual(probeSandbox());
    expect(await sandboxSupportAsync()).toEqual(sandboxSupport());
  }, 60_000);

  it("a program's footprint is its node_modules package directory, or the file itself; a missing path resolves to itself", () => {
    expect(programFootprint(process.execPath)).toMatch(/node_modules$/);
    expect(programFootprint("/bin/sh")).toBe(realOrSelf("/bin/sh"));
    expect(realOrSelf("/no/such/path")).toBe("/no/such/path");
  });
});

describe.skipIf(!support.available)("limits every sandboxed process gets", () => {
  it("its OOM score is the highest (the kernel kills it before the harness), and its /tmp is a bounded tmpfs", async () => {
    const outcome = await runProcess({
      command: "/bin/sh",
      args: [
        "-c",
        "cat /proc/self/oom_score_adj; stat -c %a /tmp; head -c 600M /dev/zero > /tmp/fill 2>/dev/null; echo fill=$?; du -m /tmp/fill | cut -f1",
      ],
      cwd: work,
      env: { PATH: "/usr/bin:/bin" },
      timeoutMs: 60_000,
      sandbox: { writable: [work] },
    });
    const [oom, mode, fill, megabytes] = outcome.stdout.toString("utf8").trim().split("\n");
    expect(oom).toBe(support.available && support.choom !== null ? "1000" : "0");
    expect(mode).toBe("1777");
    expect(fill).not.toBe("fill=0");
    expect(Number(megabytes)).toBeLessThanOrEqual(512);
    // The harness's own score is untouched.
    expect(readFileSync("/proc/self/oom_score_adj", "utf8").trim()).not.toBe("1000");
  }, 90_000);
});
