// Resource limits for every sandboxed process: a count of processes, memory, and disk. Where evalgate can
// create a cgroup child (root, or a delegated cgroup) each process gets its own group in the pids and
// memory controllers, which also says afterwards which limit was hit; otherwise rlimits apply (RLIMIT_NPROC,
// RLIMIT_DATA), and a hit is read from the sandbox's task count and the program's own failure. Disk is RLIMIT_FSIZE (one file's size) on both paths, plus the size-limited tmpfs /tmp
// (bwrap.ts) and the workspace walk's byte bound, which the runner records as the disk limit.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { totalmem } from "node:os";
import { dirname, join } from "node:path";

export interface ResourceLimits {
  /** Processes and threads at once. */
  readonly pids: number;
  /** Memory (cgroup: resident, page cache and tmpfs included; rlimit: the data segment of each process). */
  readonly memoryBytes: number;
  /**
   * Disk: the largest file it may write (RLIMIT_FSIZE), and what its writable trees may allocate in all
   * (checked while it runs, process-runner.ts; the runner's workspace walk bounds the total again after).
   */
  readonly diskBytes: number;
}

export type LimitKind = "pids" | "memory" | "disk";
/** How limits were applied: a cgroup per process, rlimits, or none (prlimit missing and no cgroup). */
export type LimitMechanism = "cgroup" | "rlimit" | "none";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/**
 * Limits that fit `concurrency` cases at once on this machine: three quarters of its memory shared by
 * them (at most 4 GiB and at least 512 MiB each; 4 GiB each at --concurrency 4 on a 24 GiB machine),
 * 1,024 processes (a build spawns dozens; a fork bomb stops there), 1 GiB per file (the workspace walk's
 * own bound).
 */
export function defaultLimits(concurrency = 1, memory = totalmem()): ResourceLimits {
  const share = Math.floor((memory * 0.75) / Math.max(1, concurrency));
  return { pids: 1024, memoryBytes: Math.min(4 * GIB, Math.max(512 * MIB, share)), diskBytes: GIB };
}

/** Where per-process groups are made: one parent per controller (cgroup v1) or one (v2). */
export interface CgroupParents {
  readonly version: 1 | 2;
  /** v1: [pids parent, memory parent]; v2: [the parent]. */
  readonly dirs: readonly string[];
}

const CGROUP_ROOT = "/sys/fs/cgroup";

/** This process's cgroup path per controller ("" for v2's unified line), from /proc/self/cgroup. */
function ownCgroups(): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const [, controllers, path] = line.split(":");
    if (controllers === undefined || path === undefined) continue;
    for (const controller of controllers.split(",")) paths.set(controller, path);
  }
  return paths;
}

/**
 * Makes the parent groups for this process's sandboxes below its own cgroup (so a limit placed on evalgate
 * from outside still covers them), or returns why it cannot: not writable (an ordinary user without a
 * delegated cgroup), controllers missing, or cgroup v2 with processes in our own group (the kernel then
 * refuses to enable controllers for children). `root` is for tests.
 */
export function makeCgroupParents(
  root = CGROUP_ROOT,
  own = ownCgroups(),
  name = `evalgate-${process.pid}`,
): CgroupParents | string {
  try {
    if (existsSync(join(root, "pids", "cgroup.procs")) && existsSync(join(root, "memory", "cgroup.procs"))) {
      const dirs = (["pids", "memory"] as const).map((controller) =>
        join(root, controller, own.get(controller) ?? "/", name),
      );
      for (const dir of dirs) {
        sweepStaleParents(dirname(dir));
        mkdirSync(dir, { recursive: true });
      }
      return { version: 1, dirs };
    }
    if (existsSync(join(root, "cgroup.controllers"))) {
      const ownDir = join(root, own.get("") ?? "/");
      const available = readFileSync(join(ownDir, "cgroup.controllers"), "utf8").split(/\s+/);
      if (!available.includes("pids") || !available.includes("memory"))
        return "the pids and memory controllers are not available to evalgate's cgroup";
      writeFileSync(join(ownDir, "cgroup.subtree_control"), "+pids +memory");
      const dir = join(ownDir, name);
      sweepStaleParents(ownDir);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "cgroup.subtree_control"), "+pids +memory");
      return { version: 2, dirs: [dir] };
    }
    return "no cgroup file system at /sys/fs/cgroup";
  } catch (error) {
    return `cannot create a cgroup (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
}

/**
 * Removes the groups an earlier evalgate left (`evalgate-<pid>` whose process is gone: killed, or a worker
 * whose exit handler never ran), with their empty per-process children. Busy ones stay.
 */
function sweepStaleParents(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((entry) => /^evalgate-\d+$/.test(entry));
  } catch {
    return;
  }
  for (const entry of names) {
    const pid = Number(entry.slice("evalgate-".length));
    if (pid === process.pid || existsSync(`/proc/${pid}`)) continue;
    const stale = join(dir, entry);
    try {
      for (const child of readdirSync(stale, { withFileTypes: true }))
        if (child.isDirectory()) rmdirSync(join(stale, child.name));
      rmdirSync(stale);
    } catch {
      // Still holding a process, or gone meanwhile.
    }
  }
}

let parents: CgroupParents | string | undefined;

/** The cgroup parents of this process, made once (and removed at its exit); a string says why only rlimits apply. */
export function cgroupParents(): CgroupParents | string {
  if (parents === undefined) {
    parents = makeCgroupParents();
    if (typeof parents !== "string") process.once("exit", removeCgroupParents);
  }
  return parents;
}

/** Which mechanism limits sandboxed processes here. */
export function limitMechanism(): LimitMechanism {
  if (typeof cgroupParents() !== "string") return "cgroup";
  return prlimitPath() === undefined ? "none" : "rlimit";
}

/** One sandboxed process's groups: the files its wrapper joins, what it hit, and their removal. */
export interface LimitGroup {
  /** `cgroup.procs` files the process writes its pid into before it execs bwrap. */
  readonly procsFiles: readonly string[];
  /** The limit the group hit so far (pids refused a fork; the memory controller killed a process), or null. */
  hit(): LimitKind | null;
  /** Removes the groups once no process is left in them (retried briefly while they drain). */
  remove(): Promise<void>;
}

let counter = 0;

const readOr = (path: string): string => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};
const counterIn = (text: string, key: string): number =>
  Number(new RegExp(`^${key} (\\d+)$`, "m").exec(text)?.[1] ?? 0);

/** Creates the per-process groups in `found` with `limits` applied. */
export function createLimitGroup(found: CgroupParents, limits: ResourceLimits): LimitGroup {
  const name = `p${++counter}`;
  const dirs = found.dirs.map((dir) => join(dir, name));
  for (const dir of dirs) mkdirSync(dir);
  const [pidsDir, memoryDir] = found.version === 1 ? [dirs[0]!, dirs[1]!] : [dirs[0]!, dirs[0]!];
  writeFileSync(join(pidsDir, "pids.max"), String(limits.pids));
  if (found.version === 1) {
    writeFileSync(join(memoryDir, "memory.limit_in_bytes"), String(limits.memoryBytes));
    // Without swap accounting this file is absent; with it, swap must not extend the limit.
    if (existsSync(join(memoryDir, "memory.memsw.limit_in_bytes")))
      writeFileSync(join(memoryDir, "memory.memsw.limit_in_bytes"), String(limits.memoryBytes));
  } else {
    writeFileSync(join(memoryDir, "memory.max"), String(limits.memoryBytes));
    if (existsSync(join(memoryDir, "memory.swap.max"))) writeFileSync(join(memoryDir, "memory.swap.max"), "0");
  }
  return {
    procsFiles: dirs.map((dir) => join(dir, "cgroup.procs")),
    hit() {
      if (
        counterIn(readOr(join(memoryDir, found.version === 1 ? "memory.oom_control" : "memory.events")), "oom_kill") > 0
      )
        return "memory";
      if (counterIn(readOr(join(pidsDir, "pids.events")), "max") > 0) return "pids";
      return null;
    },
    async remove() {
      for (const dir of dirs) {
        for (let attempt = 0; ; attempt++) {
          try {
            rmdirSync(dir);
            break;
          } catch (error) {
            const code = (error as NodeJS.ErrnoException).code;
            if (code === "ENOENT" || attempt >= 40) break;
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
        }
      }
    },
  };
}

/**
 * The argv prefix that puts a process in its groups before it execs the rest: a shell writes its own pid
 * into each `cgroup.procs` (so every child bwrap starts is born inside) and execs; exit 126 if it cannot.
 */
export function joinGroupPrefix(group: LimitGroup): string[] {
  return [
    "/bin/sh",
    "-c",
    'for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 126; shift; done; shift; exec "$@"',
    "sh",
    ...group.procsFiles,
    "--",
  ];
}

const PRLIMIT_CANDIDATES = ["/usr/bin/prlimit", "/bin/prlimit"];
const prlimitPath = (): string | undefined => PRLIMIT_CANDIDATES.find((candidate) => existsSync(candidate));

/**
 * The `prlimit` prefix (util-linux) run before bwrap: the file-size limit, on both mechanisms. Empty when
 * prlimit is missing (limitMechanism() then says "none" unless a cgroup applies).
 */
export function rlimitPrefix(limits: ResourceLimits): string[] {
  const prlimit = prlimitPath();
  return prlimit === undefined ? [] : [prlimit, `--fsize=${limits.diskBytes}`, "--"];
}

/**
 * With the rlimit mechanism, the `prlimit` prefix run inside the sandbox, just before the program: the
 * process count and the data segment. Set there, not before bwrap, RLIMIT_NPROC counts the tasks of the
 * sandbox's own user namespace (an ordinary user's harness and its other sandboxes are not in it), so the
 * sandbox's task count reaching the limit is the kernel refusing its forks (sandboxTasks(), process-tree.ts).
 */
export function innerRlimitPrefix(limits: ResourceLimits, mechanism: LimitMechanism): string[] {
  const prlimit = prlimitPath();
  if (prlimit === undefined || mechanism !== "rlimit") return [];
  return [prlimit, `--nproc=${limits.pids}`, `--data=${limits.memoryBytes}`, "--"];
}

/**
 * Whether a program that failed on its own (not stopped by evalgate) failed to allocate memory, as the
 * common runtimes report it on stderr: the rlimit path's memory limit (RLIMIT_DATA) makes the allocation
 * fail and records nothing else. Python `MemoryError`, glibc and most C programs `Cannot allocate memory`
 * (ENOMEM), Node and Go `out of memory`, C++ `std::bad_alloc`, Rust `memory allocation of N bytes failed`.
 * Like the disk limit's EFBIG, a program may print this without cause: it failed all the same.
 */
export function allocationFailed(exitCode: number | null, tail: string): boolean {
  if (exitCode === 0) return false;
  return /MemoryError|Cannot allocate memory|\bENOMEM\b|out of memory|std::bad_alloc|memory allocation of \d+ bytes failed/i.test(
    tail,
  );
}

/** Drops the parents made by cgroupParents() (at exit; groups still holding processes are left). */
export function removeCgroupParents(): void {
  const found = cgroupParents();
  if (typeof found === "string") return;
  for (const dir of found.dirs) {
    try {
      rmdirSync(dir);
    } catch {
      // Busy or gone.
    }
  }
}

/**
 * Makes the harness the kernel's last choice under memory pressure (oom_score_adj -900; sandboxed processes
 * get 1000). Only root may lower it: for an ordinary user it stays as inherited. Done once per process.
 */
export function lowerHarnessOomScore(): void {
  if (oomLowered) return;
  oomLowered = true;
  try {
    writeFileSync("/proc/self/oom_score_adj", String(HARNESS_OOM_SCORE_ADJ));
  } catch {
    // EACCES for an ordinary user: not allowed to lower its own score.
  }
}

export const HARNESS_OOM_SCORE_ADJ = -900;
let oomLowered = false;

/** One line naming the limit a sandboxed process hit, its value and how it applied; null when it hit none. */
export function limitHitDetail(outcome: {
  readonly limitHit: LimitKind | null;
  readonly limits: { readonly mechanism: LimitMechanism; readonly values: ResourceLimits } | null;
}): string | null {
  if (outcome.limitHit === null || outcome.limits === null) return null;
  const { values, mechanism } = outcome.limits;
  const mib = (bytes: number): string => `${Math.round(bytes / MIB)} MiB`;
  const what = {
    pids: `pids limit (${values.pids} processes) reached`,
    memory: `memory limit (${mib(values.memoryBytes)}) reached`,
    disk: `disk limit (${mib(values.diskBytes)}) reached`,
  }[outcome.limitHit];
  return `${what}, enforced by ${mechanism}`;
}
