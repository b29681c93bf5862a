// The sandbox's own network behind slirp4netns (`network: "slirp4netns"`), attacked from inside as root
// and as an ordinary user (a scratch user the test creates): the host's loopback, its abstract sockets and
// its /proc/net stay out of reach, an address of the host's own outside interface is reachable.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeInstallDir, sandboxSupport } from "./bwrap.ts";
import { networkSupport, SlirpNetwork, slirpArgv } from "./network.ts";
import { runProcess } from "./process-runner.ts";

const runnable = sandboxSupport().available && networkSupport().available;
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && entry.family === "IPv4" && !entry.internal)?.address;
if (!runnable) console.warn("slirp4netns sandbox tests skipped: the sandbox or slirp4netns is not available here");

let dir: string;
const servers: Server[] = [];
const ports = { loopback: 0, outside: 0 };
const abstractName = `evalgate-netns-test-${process.pid}`;

const listen = (server: Server, ...where: unknown[]): Promise<number> =>
  new Promise((resolve) =>
    (server.listen as (...args: unknown[]) => void)(...where, () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    }),
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sandbox-net-"));
  chmodSync(dir, 0o777);
  const serve = (text: string): Server => {
    const server = createServer((socket) => socket.end(text));
    servers.push(server);
    return server;
  };
  ports.loopback = await listen(serve("loopback\n"), 0, "127.0.0.1");
  await listen(serve("abstract\n"), `\0${abstractName}`);
  if (outsideAddress !== undefined) ports.outside = await listen(serve("outside\n"), 0, outsideAddress);
});
afterAll(() => {
  for (const server of servers) server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the sandboxed probe found, as one JSON line: each connection's result, /proc/net, the interface, DNS. */
const probe = () => `const net = require("net"); const fs = require("fs");
const attempt = (...target) => new Promise((resolve) => { const s = net.connect(...target); s.on("data", (d) => { resolve("connected: " + d.toString().trim()); s.destroy() }); s.on("error", (e) => resolve(e.code)); setTimeout(() => { resolve("timeout"); s.destroy() }, 2000) });
const read = (p) => { try { return fs.readFileSync(p, "utf8") } catch (e) { return e.code } };
(async () => console.log(JSON.stringify({
  loopback: await attempt(${ports.loopback}, "127.0.0.1"),
  abstract: await attempt("\\0${abstractName}"),
  outside: ${outsideAddress === undefined ? '"skipped"' : `await attempt(${ports.outside}, ${JSON.stringify(outsideAddress)})`},
  proc_net_unix: read("/proc/net/unix").includes("${abstractName}"),
  tap0: read("/proc/net/dev").includes("tap0:"),
  resolv: read("/etc/resolv.conf") === ${JSON.stringify(readOr("/etc/resolv.conf"))},
  dev_null: (() => { try { fs.writeFileSync("/dev/null", "x"); return "ok" } catch (e) { return e.code } })(),
})))()`;

function readOr(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

const expected = () => ({
  loopback: "ECONNREFUSED",
  abstract: "ECONNREFUSED",
  outside: outsideAddress === undefined ? "skipped" : "connected: outside",
  proc_net_unix: false,
  tap0: true,
  resolv: true,
  dev_null: "ok",
});

describe.skipIf(!runnable)("a sandbox's own network behind slirp4netns", () => {
  it("as root (or whoever runs the tests): outside reachable; host loopback, abstract sockets, /proc/net not", async () => {
    const outcome = await runProcess({
      command: process.execPath,
      args: ["-e", probe()],
      cwd: dir,
      env: {},
      timeoutMs: 30_000,
      sandbox: { readOnly: [nodeInstallDir()], writable: [dir], network: "slirp4netns" },
    });
    expect(outcome.spawnError).toBeNull();
    expect(JSON.parse(outcome.stdout.toString("utf8"))).toEqual(expected());
  }, 60_000);

  it.runIf(process.getuid?.() === 0)(
    "run by an ordinary user (a scratch user the test creates): the same",
    async () => {
      const user = "evalgate-sbx-test";
      if (spawnSync("id", ["-u", user]).status !== 0)
        expect(spawnSync("useradd", ["--no-create-home", user]).status).toBe(0);
      const uid = Number(spawnSync("id", ["-u", user], { encoding: "utf8" }).stdout.trim());
      const script = `import { runProcess, nodeInstallDir } from ${JSON.stringify(join(import.meta.dirname, "index.ts"))};
      const o = await runProcess({ command: process.execPath, args: ["-e", ${JSON.stringify(probe())}], cwd: ${JSON.stringify(dir)}, env: {}, timeoutMs: 30000, sandbox: { readOnly: [nodeInstallDir()], writable: [${JSON.stringify(dir)}], network: "slirp4netns" } });
      console.log(o.stdout.toString().trim() || o.spawnError || o.stderr);`;
      const said = await new Promise<string>((resolve) => {
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
      expect(JSON.parse(said)).toEqual(expected());
    },
    60_000,
  );

  it("costs a measured start-up per sandbox (median of 15, logged)", async () => {
    const once = async (network: false | "slirp4netns"): Promise<number> => {
      const started = performance.now();
      const outcome = await runProcess({
        command: "/bin/true",
        args: [],
        cwd: dir,
        env: {},
        timeoutMs: 30_000,
        sandbox: { writable: [dir], network },
      });
      expect(outcome.exitCode).toBe(0);
      return performance.now() - started;
    };
    const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const plain: number[] = [];
    const slirp: number[] = [];
    for (let i = 0; i < 15; i++) {
      plain.push(await once(false));
      slirp.push(await once("slirp4netns"));
    }
    console.log(
      `sandbox start-up, median of 15: ${median(plain).toFixed(1)} ms without network, ${median(slirp).toFixed(1)} ms with slirp4netns`,
    );
    expect(median(slirp)).toBeGreaterThan(0);
  }, 120_000);
});

describe("slirp4netns, refused and failing", () => {
  it("is unavailable, naming what is missing, when no candidate exists", () => {
    expect(networkSupport(["/nonexistent/slirp4netns"])).toEqual({
      available: false,
      reason: "slirp4netns is not installed",
    });
  });

  it("runs without loopback or DNS aliases; confines itself only as root", () => {
    expect(slirpArgv("/usr/bin/slirp4netns", 42, true)).toEqual([
      "/usr/bin/slirp4netns",
      "--configure",
      "--mtu=65520",
      "--disable-host-loopback",
      "--disable-dns",
      "--enable-sandbox",
      "--enable-seccomp",
      "--ready-fd=3",
      "--exit-fd=4",
      "42",
      "tap0",
    ]);
    expect(slirpArgv("/usr/bin/slirp4netns", 42, false)).not.toContain("--enable-sandbox");
  });

  it("never releases the program when slirp4netns fails, and says why", async () => {
    const fake = join(dir, "fake-slirp");
    writeFileSync(fake, "#!/bin/sh\necho 'setns(CLONE_NEWNET): Operation not permitted' >&2\nexit 1\n");
    chmodSync(fake, 0o755);
    const info = new PassThrough();
    const block = new PassThrough();
    let released = false;
    block.on("data", () => (released = true));
    const network = new SlirpNetwork(fake);
    const connecting = network.connect(info, block);
    info.write('{\n    "child-pid": 1\n}\n');
    await expect(connecting).rejects.toThrow(
      "slirp4netns exited before the network was up (setns(CLONE_NEWNET): Operation not permitted)",
    );
    await network.stop();
    expect(released).toBe(false);
  });

  it("fails when bwrap ends before naming its child, and starts nothing once stopped", async () => {
    const closed = new PassThrough();
    const connecting = new SlirpNetwork("/bin/false").connect(closed, new PassThrough());
    closed.destroy();
    await expect(connecting).rejects.toThrow("bwrap ended before it created the sandbox's network namespace");
    const info = new PassThrough();
    const network = new SlirpNetwork("/bin/false");
    const late = network.connect(info, new PassThrough());
    await network.stop();
    info.write('{"child-pid": 1}');
    await expect(late).rejects.toThrow("the case ended before its network was up");
  });

  it("kills a slirp4netns that never gets ready once the case ends, and reports one that cannot start", async () => {
    const stuck = join(dir, "stuck-slirp");
    writeFileSync(stuck, "#!/bin/sh\nexec sleep 30\n");
    chmodSync(stuck, 0o755);
    const info = new PassThrough();
    const network = new SlirpNetwork(stuck);
    // The rejection is expected while stop() waits: its handler is attached before, as the runner does.
    const connecting = expect(network.connect(info, new PassThrough())).rejects.toThrow(
      /slirp4netns exited before the network was up \(exit SIGKILL\)/,
    );
    info.write('{"child-pid": 1}');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    await network.stop();
    expect(performance.now() - started).toBeLessThan(5_000);
    await connecting;

    const missing = new PassThrough();
    const absent = new SlirpNetwork(join(dir, "no-such-slirp"));
    const failing = expect(absent.connect(missing, new PassThrough())).rejects.toThrow(/cannot start slirp4netns/);
    missing.write('{"child-pid": 1}');
    await failing;
    await absent.stop();
  }, 30_000);
});
