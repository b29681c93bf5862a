// `--sut-network` attacked: a networked `command:` SUT tries to reach what only the host should reach (its
// 127.0.0.1 listeners, its abstract unix sockets, its /proc/net tables) and the outside world it may reach
// (a listener on one of the host's non-loopback addresses). Real processes, a real sandbox, real sockets.
import { mkdirSync, readdirSync, readFileSync, rmSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SutInvocation } from "@eval/models";
import { sutCaseOf } from "@eval/models";
import { networkSupport, sandboxSupport } from "@eval/sandbox";
import { makeCase } from "./bench.test-helpers.ts";
import { commandSut } from "./command-sut.ts";
import { canarySeedFor, SutAborted } from "./sut.ts";

const runnable = sandboxSupport().available && networkSupport().available;
/** One of the host's own non-loopback IPv4 addresses (eth0's, say): the "outside" a networked SUT may reach. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && entry.family === "IPv4" && !entry.internal)?.address;
if (!runnable) console.warn("--sut-network tests skipped: the sandbox or slirp4netns is not available here");
if (outsideAddress === undefined)
  console.warn("--sut-network outbound test skipped: the host has no non-loopback IPv4 address");

let dir: string;
let loopback: Server;
let outside: Server | undefined;
let abstractServer: Server;
const abstractName = `evalgate-sut-net-${process.pid}`;
let invocation: (overrides?: Partial<SutInvocation>) => SutInvocation;

const listen = (server: Server, ...where: unknown[]): Promise<number> =>
  new Promise((resolve) =>
    (server.listen as (...args: unknown[]) => void)(...where, () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    }),
  );
let loopbackPort = 0;
let outsidePort = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "evalgate-sut-net-"));
  loopback = createServer((socket) => socket.end("the host's loopback service\n"));
  loopbackPort = await listen(loopback, 0, "127.0.0.1");
  abstractServer = createServer((socket) => socket.end("the host's abstract socket\n"));
  await listen(abstractServer, `\0${abstractName}`);
  if (outsideAddress !== undefined) {
    outside = createServer((socket) => socket.end("outside\n"));
    outsidePort = await listen(outside, 0, outsideAddress);
  }
  mkdirSync(join(dir, "sut"));
  // The attacker: tries each door and reports what it found, as its output.
  writeFileSync(
    join(dir, "sut", "probe.mjs"),
    `import { connect } from "node:net";
     import { readFileSync } from "node:fs";
     const [loopbackPort, abstractName, outsideAddress, outsidePort, mode] = process.argv.slice(2);
     if (mode === "hang") setInterval(() => {}, 1000);
     const attempt = (...target) => new Promise((resolve) => {
       const socket = connect(...target);
       socket.on("data", (data) => { resolve("connected: " + data.toString().trim()); socket.destroy(); });
       socket.on("error", (error) => resolve(error.code));
       setTimeout(() => { resolve("timeout"); socket.destroy(); }, 2000);
     });
     const read = (path) => { try { return readFileSync(path, "utf8") } catch (error) { return error.code } };
     const portHex = Number(loopbackPort).toString(16).toUpperCase().padStart(4, "0");
     const result = {
       loopback: await attempt(Number(loopbackPort), "127.0.0.1"),
       gateway: await attempt(Number(loopbackPort), "10.0.2.2"),
       dns_alias: await attempt(Number(loopbackPort), "10.0.2.3"),
       abstract: await attempt("\\0" + abstractName),
       proc_net_tcp_lists_host_listener: read("/proc/net/tcp").includes(":" + portHex + " 00000000:0000 0A"),
       proc_net_unix_lists_host_socket: read("/proc/net/unix").includes("@" + abstractName),
       outside: outsideAddress === "-" ? "skipped" : await attempt(Number(outsidePort), outsideAddress),
     };
     process.stdout.write(JSON.stringify(result));`,
  );
  const benchCase = await makeCase(join(dir, "bench", "network"), "net-case");
  invocation = (overrides = {}) => ({
    benchCase: sutCaseOf(benchCase),
    workspacePath: mkdtempSync(join(tmpdir(), "evalgate-sut-net-ws-")),
    canarySeed: canarySeedFor(benchCase.cassette_canary_pin),
    signal: new AbortController().signal,
    timeoutMs: 30_000,
    invocationTag: "bench:2026-01-01T00:00:00.000Z:network:net-case",
    ...overrides,
  });
});
afterAll(async () => {
  for (const server of [loopback, abstractServer, outside]) server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const probeArgs = (mode = "probe"): string[] => [
  process.execPath,
  join(dir, "sut", "probe.mjs"),
  String(loopbackPort),
  abstractName,
  outsideAddress ?? "-",
  String(outsidePort),
  mode,
];

/** slirp4netns processes this test process started that still exist (zombies included). */
function ownSlirps(): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return stat.includes("(slirp4netns)") && Number(fields[1]) === process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(!runnable)("--sut-network: a networked command SUT, attacked", () => {
  it("reaches the outside through slirp4netns, but not the host's loopback, abstract sockets or /proc/net", async () => {
    const sut = commandSut(probeArgs(), { cwd: dir, network: true, hide: [join(dir, "bench")] });
    expect(sut.isolation).toBe("bwrap-slirp4netns");
    const found = await sut.run(invocation());
    expect(found).toMatchObject({
      loopback: "ECONNREFUSED",
      abstract: "ECONNREFUSED",
      proc_net_tcp_lists_host_listener: false,
      proc_net_unix_lists_host_socket: false,
    });
    // The host's loopback through slirp's own aliases (the gateway, the DNS address) is refused too.
    expect(found.gateway).not.toMatch(/^connected/);
    expect(found.dns_alias).not.toMatch(/^connected/);
    expect(found.outside).toBe(outsideAddress === undefined ? "skipped" : "connected: outside");
    expect(ownSlirps()).toEqual([]);
  }, 60_000);

  it("leaves no slirp4netns behind when the SUT runs into its deadline", async () => {
    const sut = commandSut(probeArgs("hang"), { cwd: dir, network: true, hide: [join(dir, "bench")] });
    const controller = new AbortController();
    const call = invocation({ timeoutMs: 1_500, signal: controller.signal });
    setTimeout(() => controller.abort(), 1_500);
    await expect(sut.run(call)).rejects.toBeInstanceOf(SutAborted);
    expect(ownSlirps()).toEqual([]);
  }, 60_000);
});
