// The bubblewrap sandbox: a process sees a read-only system, exactly the host paths its policy names,
// a private /tmp, /proc and /dev, no host processes, and no network unless the policy grants it.
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { sep } from "node:path";

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
  /** Share the host's network (an agent CLI calling its API); default false: no network at all. */
  readonly network?: boolean;
  /**
   * Host directories shown at another path inside (an agent's workspace always at the same path, so a
   * recorded session's absolute paths hold on replay), writable unless `readOnly`; mounted after the rest.
   */
  readonly binds?: readonly { readonly source: string; readonly target: string; readonly readOnly?: boolean }[];
  /** The working directory inside, when it is not the process's cwd at the same path (e.g. a bind's target). */
  readonly chdir?: string;
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

let support: SandboxSupport | undefined;

export type SandboxSupport = { readonly available: true; readonly bwrap: string } | { readonly available: false; readonly reason: string };

/**
 * Whether bubblewrap can build the sandbox here: installed, and allowed to create the namespaces it
 * needs (user namespaces may be disabled). Probed once per process by running `true` inside it.
 */
export function sandboxSupport(): SandboxSupport {
  if (support !== undefined) return support;
  const bwrap = BWRAP_CANDIDATES.find((candidate) => existsSync(candidate));
  if (bwrap === undefined) {
    support = { available: false, reason: "bubblewrap (bwrap) is not installed" };
    return support;
  }
  const probe = spawnSync(bwrap, [...systemArgs(false), "--", "/bin/true"], { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000, env: {} });
  if (probe.status === 0) support = { available: true, bwrap };
  else {
    const why = probe.error?.message ?? (probe.stderr.toString("utf8").trim().split("\n")[0] || `exit ${probe.status ?? probe.signal}`);
    support = { available: false, reason: `bubblewrap cannot create its namespaces here (${why})` };
  }
  return support;
}

const systemArgsCache = new Map<boolean, readonly string[]>();

/** Namespaces, the read-only system, private /proc, /dev and /tmp (built once per process and network mode). */
function systemArgs(network: boolean): readonly string[] {
  const cached = systemArgsCache.get(network);
  if (cached !== undefined) return cached;
  const args = buildSystemArgs(network);
  systemArgsCache.set(network, args);
  return args;
}

function buildSystemArgs(network: boolean): string[] {
  const args = ["--unshare-all", ...(network ? ["--share-net"] : []), "--die-with-parent", "--new-session"];
  // As root, bwrap would keep capabilities inside the sandbox: drop them all.
  if (process.getuid?.() === 0) args.push("--cap-drop", "ALL");
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
  for (const file of ETC_FILES) args.push("--ro-bind-try", file, file);
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  return args;
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
  const existing = (paths: readonly string[] | undefined): string[] => [...new Set((paths ?? []).filter((path) => existsSync(path)).map(realOrSelf))];
  const mounts: Mount[] = [
    ...existing(policy.readOnly).map((path) => ({ path, args: ["--ro-bind", path, path], order: 0 })),
    ...existing(policy.writable).map((path) => ({ path, args: ["--bind", path, path], order: 0 })),
    ...existing(policy.hidden).map((path) => ({ path, args: ["--tmpfs", path], order: 1 })),
  ];
  mounts.sort((a, b) => depth(a.path) - depth(b.path) || a.order - b.order || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const binds = (policy.binds ?? []).flatMap((bind) => [bind.readOnly === true ? "--ro-bind" : "--bind", realOrSelf(bind.source), bind.target]);
  return [...mounts.flatMap((mount) => mount.args), ...binds];
}

/**
 * The argv that runs `argv` inside the sandbox: `bwrap <namespaces, system, policy mounts> --chdir cwd
 * --clearenv --setenv ... -- argv`. The environment is exactly `env`. Throws when the sandbox is not
 * available (callers check sandboxSupport() first and decide what weaker isolation, if any, is allowed).
 */
export function sandboxArgv(policy: SandboxPolicy, argv: readonly string[], options: { readonly cwd: string; readonly env: Readonly<Record<string, string>> }): string[] {
  const found = sandboxSupport();
  if (!found.available) throw new Error(`sandbox unavailable: ${found.reason}`);
  const env = Object.entries(options.env).flatMap(([key, value]) => ["--setenv", key, value]);
  return [found.bwrap, ...systemArgs(policy.network === true), ...policyArgs(policy), "--chdir", policy.chdir ?? realOrSelf(options.cwd), "--clearenv", ...env, "--", ...argv];
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
