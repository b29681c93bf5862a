// The network of a sandbox that may reach out (`--sut-network`): its own network namespace (bwrap
// --unshare-net) whose one way out is slirp4netns, a user-mode TCP/IP stack on the host that opens an
// ordinary host socket for each connection the sandbox makes. With --disable-host-loopback it refuses
// every connection to the host's loopback (127.0.0.0/8, also through its gateway alias 10.0.2.2), and
// with --disable-dns it has no DNS alias (10.0.2.3) either: the sandbox uses the host's resolv.conf and
// reaches its nameservers like any other address. Host abstract unix sockets and the host's /proc/net
// belong to the host's network namespace, which the sandbox is not in.
//
// The handshake, so that the program never starts before its interface is up: bwrap writes the pid of
// the sandbox's first process to INFO_FD and then waits on BLOCK_FD; slirp4netns joins that process's
// network namespace (as root directly; under an ordinary user through bwrap's user namespace, which
// owns it), configures tap0 and says so on its ready fd; only then is BLOCK_FD written. slirp4netns
// exits when its exit fd closes: when the case ends, or when the harness dies.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import type { Readable, Writable } from "node:stream";

/** The descriptors bwrap reports its child's pid on (--info-fd) and waits on before the program runs (--block-fd). */
export const INFO_FD = 5;
export const BLOCK_FD = 6;

const SLIRP_CANDIDATES = ["/usr/bin/slirp4netns", "/usr/local/bin/slirp4netns", "/bin/slirp4netns"];
/** How long slirp4netns may take to configure the namespace before the case fails. */
const READY_TIMEOUT_MS = 10_000;
/** After its exit fd closed, how long slirp4netns has to exit before it gets SIGKILL. */
const STOP_GRACE_MS = 1_000;

export type NetworkSupport =
  { readonly available: true; readonly slirp4netns: string } | { readonly available: false; readonly reason: string };

/** Whether a sandbox can get its own network here: slirp4netns installed, an executable file (candidates for tests). */
export function networkSupport(candidates: readonly string[] = SLIRP_CANDIDATES): NetworkSupport {
  const slirp4netns = candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
  return slirp4netns === undefined
    ? { available: false, reason: "slirp4netns is not installed" }
    : { available: true, slirp4netns };
}

/** The bwrap arguments that hand the child's pid out and hold the program until the network is up. */
export const HANDSHAKE_ARGS: readonly string[] = ["--info-fd", String(INFO_FD), "--block-fd", String(BLOCK_FD)];

/**
 * /dev as bwrap's `--dev` makes it, without the devpts instance (no /dev/pts, /dev/ptmx). Under an ordinary
 * user, `--dev` makes bwrap map root for mounting devpts and then move into a second, nested user
 * namespace, which does not own the network namespace: slirp4netns, joining the child's user namespace,
 * could not configure it. Without devpts there is one user namespace, the network namespace's owner.
 */
export function devWithoutPtsArgs(): string[] {
  const nodes = ["null", "zero", "full", "random", "urandom", "tty"].filter((node) => existsSync(`/dev/${node}`));
  return [
    "--tmpfs",
    "/dev",
    ...nodes.flatMap((node) => ["--dev-bind", `/dev/${node}`, `/dev/${node}`]),
    ...[
      ["/proc/self/fd", "/dev/fd"],
      ["/proc/self/fd/0", "/dev/stdin"],
      ["/proc/self/fd/1", "/dev/stdout"],
      ["/proc/self/fd/2", "/dev/stderr"],
    ].flatMap(([target, link]) => ["--symlink", target!, link!]),
    "--perms",
    "1777",
    "--dir",
    "/dev/shm",
  ];
}

/** The slirp4netns argv for the namespace of `pid`: ready on fd 3, exits when fd 4 closes. */
export function slirpArgv(slirp4netns: string, pid: number, root: boolean): string[] {
  return [
    slirp4netns,
    "--configure",
    "--mtu=65520",
    "--disable-host-loopback",
    "--disable-dns",
    // As root it can also confine itself (own mount namespace, capabilities dropped); under an ordinary
    // user that needs a user namespace of its own, which it does not make.
    ...(root ? ["--enable-sandbox"] : []),
    "--enable-seccomp",
    "--ready-fd=3",
    "--exit-fd=4",
    String(pid),
    "tap0",
  ];
}

/** One sandbox's slirp4netns: started once bwrap names its child, stopped when the case ends. */
export class SlirpNetwork {
  private process: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private stopped = false;

  private readonly slirp4netns: string;

  constructor(slirp4netns: string) {
    this.slirp4netns = slirp4netns;
  }

  /**
   * Reads the child's pid from bwrap's info pipe, starts slirp4netns on its namespace and, once the
   * interface is configured, releases the program. Rejects with one line when the network cannot be made
   * (the caller then kills the sandbox: the program must not run without it).
   */
  async connect(info: Readable, block: Writable): Promise<void> {
    const pid = await childPid(info);
    if (this.stopped) throw new Error("the case ended before its network was up");
    const slirp = spawn(this.slirp4netns, slirpArgv(this.slirp4netns, pid, process.getuid?.() === 0).slice(1), {
      stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    });
    this.process = slirp;
    this.exited = new Promise((resolve) => slirp.once("close", () => resolve()));
    let stderr = "";
    slirp.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-4096)));
    const ready = slirp.stdio[3] as Readable;
    (slirp.stdio[4] as Writable).on("error", () => {});
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("slirp4netns did not configure the network in time")),
        READY_TIMEOUT_MS,
      );
      ready.once("data", () => {
        clearTimeout(timer);
        resolve();
      });
      slirp.once("error", (error) => {
        clearTimeout(timer);
        reject(new Error(`cannot start slirp4netns: ${error.message}`));
      });
      slirp.once("exit", (code, signal) => {
        clearTimeout(timer);
        const why = stderr.trim().split("\n").filter(Boolean).at(-1) ?? `exit ${code ?? signal}`;
        reject(new Error(`slirp4netns exited before the network was up (${why})`));
      });
    });
    block.on("error", () => {});
    block.end("1");
  }

  /** Stops slirp4netns (its exit fd closed, SIGKILL after a grace) and waits until it is gone. */
  async stop(): Promise<void> {
    this.stopped = true;
    const slirp = this.process;
    if (slirp === null) return;
    (slirp.stdio[4] as Writable | null)?.destroy();
    const timer = setTimeout(() => slirp.kill("SIGKILL"), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

/** The pid bwrap writes to its info fd (`{"child-pid": N, ...}`); rejects when bwrap closes it first. */
function childPid(info: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer): void => {
      text += chunk.toString("utf8");
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match === null) return;
      info.off("data", onData);
      resolve(Number(match[1]));
    };
    info.on("data", onData);
    info.on("error", () => {});
    info.once("close", () => reject(new Error("bwrap ended before it created the sandbox's network namespace")));
  });
}
