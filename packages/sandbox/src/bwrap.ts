// The bubblewrap sandbox: a process sees a read-only system, exactly the host paths its policy names,
// a private /tmp, /proc and /dev, no host processes, and no network unless the policy grants it. It never
// runs as host root: under an ordinary user bwrap maps the sandbox into that user's uid; under root the
// process drops to nobody (SANDBOX_UID) before the program starts. /proc/sys is read-only and a seccomp
// filter (seccomp.ts) denies the system calls nothing sandboxed needs.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { chownTree } from "./tree-walk.ts";
import { sep } from "node:path";
import { seccompFilter } from "./seccomp.ts";
import type { ResourceLimits } from "./limits.ts";
import { devWithoutPtsArgs, HANDSHAKE_ARGS } from "./network.ts";

/** What network a sandbox has: none (its own loopback), the host's, or its own behind slirp4netns. */
type NetworkMode = "none" | "host" | "slirp4netns";
const networkMode = (network: SandboxPolicy["network"]): NetworkMode =>
  network === true ? "host" : network === "slirp4netns" ? "slirp4netns" : "none";
import { lifelinePrefix } from "./lifeline.ts";

/** What a sandboxed process may see of the host, besides the read-only system directories. */
export interface SandboxPolicy {
  /** Host paths visible read-only, at the same path. */
  readonly readOnly?: readonly string[];
  /** Host paths visible read-write, at the same path. */
  readonly writable?: readonly string[];
  /**
   * Paths replaced by an empty directory (e.g. a bench's cases/ inside a visible bench). A path listed
   * under readOnly or writable below a hidden one is visible again (e.g. this case's directory).
   */
  readonly hidden?: readonly string[];
  /**
   * `true`: share the host's network (an agent CLI on a subscription login); `"slirp4netns"`: its own network
   * namespace whose way out is slirp4netns, without the host's loopback (network.ts); default false: no
   * network at all (loopback only).
   */
  readonly network?: boolean | "slirp4netns";
  /**
   * Host directories shown at another path inside (an agent's workspace always at the same path, so a
   * recorded session's absolute paths hold on replay), writable unless `readOnly`; mounted after the rest.
   */
  readonly binds?: readonly { readonly source: string; readonly target: string; readonly readOnly?: boolean }[];
  /** The working directory inside, when it is not the process's cwd at the same path (e.g. a bind's target). */
  readonly chdir?: string;
  /** Process-count, memory and disk limits (limits.ts); default: defaultLimits() for one case at a time. */
  readonly limits?: ResourceLimits;
  /** Apply rlimits even where a cgroup could be made (tests of that path; a host whose cgroups must be left alone). */
  readonly rlimitsOnly?: boolean;
}

/** The read-only system: programs, libraries, and the few /etc files programs need (no secrets). */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
const ETC_FILES = [
  "alternatives",
  "ca-certificates",
  "ca-certificates.conf",
  "group",
  "host.conf",
  "hosts",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "mime.types",
  "nsswitch.conf",
  "os-release",
  "passwd",
  "resolv.conf",
  "ssl",
].map((name) => `/etc/${name}`);

const BWRAP_CANDIDATES = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];
const SETPRIV_CANDIDATES = ["/usr/bin/setpriv", "/bin/setpriv"];
const CHOOM_CANDIDATES = ["/usr/bin/choom", "/bin/choom"];

/**
 * The OOM score every sandboxed process gets (the most the kernel allows): under memory pressure the
 * kernel kills a sandboxed process before the harness (whose score is left as it is, 0 by default).
 */
export const SANDBOX_OOM_SCORE_ADJ = 1000;
/** The size of the sandbox's private /tmp (a tmpfs, counted in memory): a fill ends in ENOSPC there. */
export const SANDBOX_TMP_BYTES = 512 * 1024 * 1024;

/** The host uid and gid a sandboxed process runs as when evalgate runs as root (nobody, nogroup). */
export const SANDBOX_UID = 65534;
export const SANDBOX_GID = 65534;
/** The descriptor bwrap reads the seccomp filter from: runProcess writes seccompFilter() into it. */
export const SECCOMP_FD = 3;

let support: SandboxSupport | undefined;
let supportProbe: Promise<SandboxSupport> | undefined;

export type SandboxSupport =
  | {
      readonly available: true;
      readonly bwrap: string;
      /** As root: the setpriv that drops the sandboxed process to SANDBOX_UID; null under an ordinary user. */
      readonly setpriv: string | null;
      /** The choom that raises the sandboxed process's OOM score (util-linux); null when absent (score left as inherited). */
      readonly choom: string | null;
    }
  | { readonly available: false; readonly reason: string };

const runningAsRoot = (): boolean => process.getuid?.() === 0;

/**
 * Whether bubblewrap can build the sandbox here: installed, and allowed to create the namespaces it
 * needs (user namespaces may be disabled). Probed once per process by running `true` inside it.
 */
export function sandboxSupport(): SandboxSupport {
  support ??= probeSandbox();
  return support;
}

/** Where to look for the tools the sandbox needs, and which architecture's system call table to filter. */
export interface SandboxTools {
  readonly bwrap: readonly string[];
  readonly setpriv: readonly string[];
  readonly arch: string;
}

/** What a probe runs (bwrap with its argv and the seccomp filter on stdin), or why there is nothing to run. */
type ProbePlan =
  | {
      readonly run: true;
      readonly bwrap: string;
      readonly setpriv: string | null;
      readonly argv: readonly string[];
      readonly filter: Buffer;
    }
  | { readonly run: false; readonly outcome: SandboxSupport };

function probePlan(tools: SandboxTools): ProbePlan {
  const bwrap = tools.bwrap.find((candidate) => existsSync(candidate));
  if (bwrap === undefined)
    return { run: false, outcome: { available: false, reason: "bubblewrap (bwrap) is not installed" } };
  const setpriv = runningAsRoot() ? (tools.setpriv.find((candidate) => existsSync(candidate)) ?? null) : null;
  if (runningAsRoot() && setpriv === null) {
    const reason =
      "setpriv (util-linux) is not installed: as root it is what drops sandboxed processes to an unprivileged uid";
    return { run: false, outcome: { available: false, reason } };
  }
  const filter = seccompFilter(tools.arch);
  if (filter === null)
    return {
      run: false,
      outcome: { available: false, reason: `no seccomp filter for the ${tools.arch} architecture` },
    };
  // The probe reads the filter from stdin (fd 0); real runs use SECCOMP_FD, keeping stdin for the program.
  const argv = [...systemArgs("none"), "--seccomp", "0", "--", ...dropPrivileges(setpriv), "/bin/true"];
  return { run: true, bwrap, setpriv, argv, filter };
}

/** What the probe's exit says: available (with the tools found), or why not. */
function probeOutcome(
  plan: Extract<ProbePlan, { run: true }>,
  exit: {
    readonly status: number | null;
    readonly signal: string | null;
    readonly error?: Error;
    readonly stderr: string;
  },
): SandboxSupport {
  const choom = CHOOM_CANDIDATES.find((candidate) => existsSync(candidate)) ?? null;
  if (exit.status === 0) return { available: true, bwrap: plan.bwrap, setpriv: plan.setpriv, choom };
  const why = exit.error?.message ?? (exit.stderr.trim().split("\n")[0] || `exit ${exit.status ?? exit.signal}`);
  return { available: false, reason: `bubblewrap cannot create its namespaces here (${why})` };
}

const PROBE_TIMEOUT_MS = 10_000;

/** The probe behind sandboxSupport(), with the tools' candidate paths given (a test names missing or broken ones). */
export function probeSandbox(
  tools: SandboxTools = { bwrap: BWRAP_CANDIDATES, setpriv: SETPRIV_CANDIDATES, arch: process.arch },
): SandboxSupport {
  const plan = probePlan(tools);
  if (!plan.run) return plan.outcome;
  const probe = spawnSync(plan.bwrap, plan.argv, {
    input: plan.filter,
    stdio: ["pipe", "ignore", "pipe"],
    timeout: PROBE_TIMEOUT_MS,
    env: {},
  });
  return probeOutcome(plan, { ...probe, stderr: probe.stderr?.toString("utf8") ?? "" });
}

/** probeSandbox without blocking: the same probe and outcome, while the process goes on with other work. */
export function probeSandboxAsync(
  tools: SandboxTools = { bwrap: BWRAP_CANDIDATES, setpriv: SETPRIV_CANDIDATES, arch: process.arch },
): Promise<SandboxSupport> {
  const plan = probePlan(tools);
  if (!plan.run) return Promise.resolve(plan.outcome);
  return new Promise((resolveProbe) => {
    const child = spawn(plan.bwrap, plan.argv, {
      stdio: ["pipe", "ignore", "pipe"],
      timeout: PROBE_TIMEOUT_MS,
      env: {},
    });
    const stderr: Buffer[] = [];
    let error: Error | undefined;
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    // A probe that exits before reading its stdin closes the pipe: its exit status says what happened.
    child.stdin.on("error", () => {});
    child.stdin.end(plan.filter);
    child.on("error", (spawnError) => {
      error = spawnError;
    });
    child.on("close", (status, signal) =>
      resolveProbe(
        probeOutcome(plan, {
          status: error === undefined ? status : null,
          signal,
          ...(error === undefined ? {} : { error }),
          stderr: Buffer.concat(stderr).toString("utf8"),
        }),
      ),
    );
  });
}

/**
 * sandboxSupport() probed without blocking, so a run can load its cases while bwrap starts; once it
 * settles, sandboxSupport() answers from it. Probed once per process, like sandboxSupport().
 */
export function sandboxSupportAsync(): Promise<SandboxSupport> {
  if (support !== undefined) return Promise.resolve(support);
  supportProbe ??= probeSandboxAsync().then((outcome) => (support ??= outcome));
  return supportProbe;
}

const systemArgsCache = new Map<NetworkMode, readonly string[]>();

/** Namespaces, the read-only system, private /proc, /dev and /tmp (built once per process and network mode). */
function systemArgs(network: NetworkMode): readonly string[] {
  const cached = systemArgsCache.get(network);
  if (cached !== undefined) return cached;
  const args = buildSystemArgs(network);
  systemArgsCache.set(network, args);
  return args;
}

function buildSystemArgs(network: NetworkMode): string[] {
  // As root, bwrap's own user namespace would map the sandbox to host uid 0: instead it unshares everything
  // but the user namespace and keeps only the capabilities setpriv needs to drop to SANDBOX_UID (and
  // DAC_READ_SEARCH, to enter a working directory already handed to that uid); setpriv clears them all
  // before the program starts, which runs as that unprivileged host uid.
  const kept = ["CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_DAC_READ_SEARCH"];
  const args = runningAsRoot()
    ? [
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        ...(network === "host" ? [] : ["--unshare-net"]),
        "--cap-drop",
        "ALL",
        ...kept.flatMap((cap) => ["--cap-add", cap]),
      ]
    : ["--unshare-all", ...(network === "host" ? ["--share-net"] : [])];
  args.push("--die-with-parent", "--new-session");
  for (const dir of SYSTEM_DIRS) {
    let entry;
    try {
      entry = lstatSync(dir);
    } catch {
      continue;
    }
    if (entry.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else if (entry.isDirectory()) args.push("--ro-bind", dir, dir);
  }
  args.push("--perms", "0755", "--dir", "/etc");
  for (const file of ETC_FILES) args.push("--ro-bind-try", file, file);
  // Under an ordinary user slirp4netns must be able to enter the network namespace's owner (network.ts).
  const dev = network === "slirp4netns" && !runningAsRoot() ? devWithoutPtsArgs() : ["--dev", "/dev"];
  args.push(
    "--proc",
    "/proc",
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    ...dev,
    "--perms",
    "1777",
    "--size",
    String(SANDBOX_TMP_BYTES),
    "--tmpfs",
    "/tmp",
  );
  return args;
}

/** The owner a harness-made entry must get for a sandboxed process to use it: null under an ordinary user. */
export function sandboxOwner(): { readonly uid: number; readonly gid: number } | null {
  return runningAsRoot() ? { uid: SANDBOX_UID, gid: SANDBOX_GID } : null;
}

/**
 * As root, hands the policy's writable paths and writable binds to SANDBOX_UID (recursively, never through a symlink), so the
 * unprivileged sandboxed process can write where its policy says; the harness, as root, still reads and
 * removes what it leaves. Under an ordinary user nothing changes hands.
 */
export async function handOverWritable(policy: SandboxPolicy): Promise<void> {
  if (!runningAsRoot()) return;
  const writableBinds = (policy.binds ?? []).filter((bind) => bind.readOnly !== true).map((bind) => bind.source);
  for (const path of [...(policy.writable ?? []), ...writableBinds]) {
    // A path handed over once (a rubric's compile cache, shared by its cases) stays the sandbox's.
    if (handedOver.has(path)) continue;
    await chownTree(path, SANDBOX_UID, SANDBOX_GID);
    handedOver.add(path);
  }
}

const handedOver = new Set<string>();

/** As root, hands a tree the harness made (a workspace for a rubric, say) to SANDBOX_UID; nothing otherwise. */
export async function handOverTree(path: string): Promise<void> {
  if (runningAsRoot()) await chownTree(path, SANDBOX_UID, SANDBOX_GID);
}

/** As root: the setpriv prefix that drops to SANDBOX_UID with no groups and no capabilities left. */
function dropPrivileges(setpriv: string | null): string[] {
  if (setpriv === null) return [];
  return [
    setpriv,
    `--reuid=${SANDBOX_UID}`,
    `--regid=${SANDBOX_GID}`,
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--",
  ];
}

const depth = (path: string): number => path.split(sep).length;

/** A path resolved through symlinks, or the path itself when it does not exist (yet). */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The mounts of a policy, parents before children so that a hidden directory hides what lies under it
 * and a path named below a hidden one shows again. Paths are resolved through symlinks: a process sees
 * each at its real path.
 */
function policyArgs(policy: SandboxPolicy): string[] {
  type Mount = { readonly path: string; readonly args: readonly string[]; readonly order: number };
  // A path that does not exist is simply not there (Node's resolver, say, probes node_modules dirs that may not exist).
  const existing = (paths: readonly string[] | undefined): string[] => [
    ...new Set((paths ?? []).filter((path) => existsSync(path)).map(realOrSelf)),
  ];
  const mounts: Mount[] = [
    ...existing(policy.readOnly).map((path) => ({ path, args: ["--ro-bind", path, path], order: 0 })),
    ...existing(policy.writable).map((path) => ({ path, args: ["--bind", path, path], order: 0 })),
    ...existing(policy.hidden).map((path) => ({ path, args: ["--tmpfs", path], order: 1 })),
  ];
  mounts.sort(
    (a, b) => depth(a.path) - depth(b.path) || a.order - b.order || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
  const binds = policy.binds ?? [];
  const bindArgs = binds.flatMap((bind) => [
    bind.readOnly === true ? "--ro-bind" : "--bind",
    realOrSelf(bind.source),
    bind.target,
  ]);
  return [
    ...parentDirArgs([...mounts.map((mount) => mount.path), ...binds.map((bind) => bind.target)]),
    ...mounts.flatMap((mount) => mount.args),
    ...bindArgs,
  ];
}

/** What the system arguments mount whole: a mount's parents are never created inside these. */
const SYSTEM_MOUNTS = ["/proc", "/dev", ...SYSTEM_DIRS];
/** Directories the system arguments create: exist already, never created again. */
const SYSTEM_PARENTS = ["/tmp", "/etc"];

/**
 * The directories leading to each mount, created world-traversable (0755) before the mounts: bwrap would
 * make them 0700 and root-owned, which an unprivileged sandboxed process cannot cross. A parent that lies
 * inside another mount, or that the system mounts already provide, is left alone.
 */
function parentDirArgs(paths: readonly string[]): string[] {
  const covered = (dir: string): boolean =>
    SYSTEM_PARENTS.includes(dir) ||
    [...paths, ...SYSTEM_MOUNTS].some((mount) => dir === mount || dir.startsWith(mount + sep));
  const parents = new Set<string>();
  for (const path of paths) {
    const parts = path.split(sep);
    for (let length = 2; length < parts.length; length++) {
      const dir = parts.slice(0, length).join(sep);
      if (!covered(dir)) parents.add(dir);
    }
  }
  return [...parents]
    .sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1))
    .flatMap((dir) => ["--perms", "0755", "--dir", dir]);
}

/**
 * The argv that runs `argv` inside the sandbox: `bwrap <namespaces, system, policy mounts> --chdir cwd
 * --clearenv --setenv ... --seccomp 3 -- [setpriv ... --] [choom -n 1000 --] <lifeline> argv`. The environment is exactly `env`; the
 * caller must hand the seccomp filter to the process on SECCOMP_FD and hold the lifeline on LIFELINE_FD. Throws when the sandbox is not
 * available (callers check sandboxSupport() first and decide what weaker isolation, if any, is allowed).
 */
export function sandboxArgv(
  policy: SandboxPolicy,
  argv: readonly string[],
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>> },
): string[] {
  const found = sandboxSupport();
  if (!found.available) throw new Error(`sandbox unavailable: ${found.reason}`);
  const env = Object.entries(options.env).flatMap(([key, value]) => ["--setenv", key, value]);
  const seccomp = ["--seccomp", String(SECCOMP_FD)];
  const oom = found.choom === null ? [] : [found.choom, "-n", String(SANDBOX_OOM_SCORE_ADJ), "--"];
  const network = networkMode(policy.network);
  return [
    found.bwrap,
    ...systemArgs(network),
    ...policyArgs(policy),
    ...(network === "slirp4netns" ? HANDSHAKE_ARGS : []),
    "--chdir",
    policy.chdir ?? realOrSelf(options.cwd),
    "--clearenv",
    ...env,
    ...seccomp,
    "--",
    ...dropPrivileges(found.setpriv),
    ...oom,
    ...lifelinePrefix(),
    ...argv,
  ];
}

/**
 * What must be visible for a program to run, and no more: for a program installed by npm or pnpm (its real
 * path passes through a `node_modules` directory) the first such `node_modules` directory, which holds the
 * package and its dependencies; otherwise the program's own file. Never a `bin/` directory's parent, which
 * may be a home directory (`~/bin/tool` must not show `~`).
 */
export function programFootprint(program: string): string {
  const real = realOrSelf(program);
  const parts = real.split(sep);
  const modules = parts.indexOf("node_modules");
  return modules > 0 ? parts.slice(0, modules + 1).join(sep) : real;
}

/** What a sandboxed Node process must be able to read of the running Node installation. */
export function nodeInstallDir(): string {
  return programFootprint(process.execPath);
}
