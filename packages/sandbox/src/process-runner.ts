// The one place evalgate starts a process it does not trust (a rubric, a SUT program, an agent CLI).
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { LineBuffer } from "./line-buffer.ts";
import { handOverWritable, sandboxArgv, sandboxOwner, SECCOMP_FD } from "./bwrap.ts";
import { LIFELINE_FD } from "./lifeline.ts";
import { seccompFilter } from "./seccomp.ts";
import type { SandboxPolicy } from "./bwrap.ts";
import {
  allocationFailed,
  cgroupParents,
  createLimitGroup,
  defaultLimits,
  innerRlimitPrefix,
  joinGroupPrefix,
  limitMechanism,
  lowerHarnessOomScore,
  rlimitPrefix,
} from "./limits.ts";
import { sandboxTasks } from "./process-tree.ts";
import { allocatedBytes } from "./disk-usage.ts";
import type { LimitGroup, LimitKind, LimitMechanism, ResourceLimits } from "./limits.ts";
import { BLOCK_FD, INFO_FD, networkSupport, SlirpNetwork } from "./network.ts";
import type { Readable, Writable } from "node:stream";

export const DEFAULT_GRACE_MS = 5_000;
export const DEFAULT_STDOUT_CAP_BYTES = 10 * 1024 * 1024;
/** stderr is diagnostics: keep its first MiB, count the rest. */
const DEFAULT_STDERR_KEEP_BYTES = 1024 * 1024;
/** How long a CLI may linger after its stream said it is done before its group is stopped. */
export const DEFAULT_LINGER_AFTER_TERMINAL_MS = 3_000;
/** After SIGKILL, how long to wait for the pipes to close (a process that left the group may hold them). */
const PIPE_CLOSE_WAIT_MS = 1_000;
const GROUP_POLL_MS = 25;
/** How often a running sandbox's process-count limit is checked (a fork bomb is stopped at the next check). */
const LIMIT_POLL_MS = 200;
/**
 * How often the writable trees' allocated bytes are summed at the least: a writer on an idle machine puts
 * about 1.5 GB/s into the page cache, so the overshoot past the disk limit is this interval's worth.
 */
const DISK_POLL_MS = 25;
/**
 * On the rlimit path each process-count check reads /proc/<pid>/stat of every host process, and each disk
 * check lstats the writable trees: the next one waits at least this many times as long as the last took,
 * so each kind of check costs at most 1/20 of a core per sandbox.
 */
const TREE_SCAN_SPACING = 20;
/** How much of stderr's end is kept to tell an allocation failure (the rlimit path's memory limit). */
const STDERR_TAIL_BYTES = 4096;

export interface ProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Written to the process's stdin, which is then closed (closed at once when absent). */
  readonly stdin?: string | Uint8Array;
  readonly timeoutMs: number;
  readonly graceMs?: number;
  readonly stdoutCapBytes?: number;
  /** stderr beyond this stops the group (default: never; only the first `stderrKeepBytes` are kept). */
  readonly stderrCapBytes?: number;
  /** How much of stderr to keep (default 1 MiB). */
  readonly stderrKeepBytes?: number;
  /**
   * Run inside a bubblewrap sandbox with this view of the host (see bwrap.ts); `env` is then set inside
   * it and the sandbox process itself gets none. Null or absent: an ordinary process (own group only).
   */
  readonly sandbox?: SandboxPolicy | null;
  readonly lingerAfterTerminalMs?: number;
  readonly signal?: AbortSignal;
  /** Each complete stdout line, in order; return true when the line ends the session (a result event). */
  readonly onStdoutLine?: (line: string) => boolean;
}

export type StopReason =
  "timeout" | "stdout_cap" | "stderr_cap" | "aborted" | "after_terminal" | "leader_exited" | "resource_limit";

export interface ProcessOutcome {
  /** stdout as received, up to the cap (partial output is kept for forensics). */
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly exitCode: number | null;
  readonly exitSignal: string | null;
  readonly timedOut: boolean;
  readonly stdoutCapped: boolean;
  readonly stderrCapped: boolean;
  readonly aborted: boolean;
  /** Why evalgate signalled the process group, if it did. */
  readonly stopReason: StopReason | null;
  /** True when SIGTERM was not enough and the group got SIGKILL. */
  readonly killed: boolean;
  readonly durationMs: number;
  /** Set when the binary could not be started at all (ENOENT, EACCES...). */
  readonly spawnError: string | null;
  /** The process group id the process ran in (its pid): gone by the time this outcome exists. */
  readonly pgid: number | null;
  /** The argv actually started (with the sandbox's wrapper when there is one). */
  readonly argv: readonly string[];
  /** For a sandboxed process: the limits it ran under and how they were applied; null outside the sandbox. */
  readonly limits: { readonly mechanism: LimitMechanism; readonly values: ResourceLimits } | null;
  /** The limit the kernel enforced on it (cgroup mechanism: from the group's counters), or null. */
  readonly limitHit: LimitKind | null;
}

/** Process groups started by runProcess that have not finished yet: what cancellation must stop. */
const liveGroups = new Set<number>();

/** The process groups of every runProcess call still in flight in this process. */
export function liveProcessGroups(): readonly number[] {
  return [...liveGroups];
}

/**
 * SIGKILLs every process group runProcess started that is still running (each call then resolves as
 * usual, its outcome saying `killed`). For a harness that was interrupted: nothing it started outlives it.
 */
export function killAllProcessGroups(): number {
  for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL");
  return liveGroups.size;
}

/** True while any process of group `pgid` exists. */
export function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Runs one CLI invocation under evalgate's process control: its own process group (so a child that
 * outlives or ignores its parent is still reached), stdout and stderr drained concurrently with
 * partial-line buffering, a deadline enforced by a timer (not between reads), SIGTERM to the group,
 * a grace period, then SIGKILL to the group; stdout over the cap kills the group too, keeping what
 * arrived. Resolves only once no process of the group is left. Never rejects.
 */
export async function runProcess(spec: ProcessSpec): Promise<ProcessOutcome> {
  if (spec.sandbox == null) return startProcess(spec, null);
  lowerHarnessOomScore();
  let limited: Limited;
  try {
    await handOverWritable(spec.sandbox);
  } catch (error) {
    return failedToSpawn(`cannot hand the sandbox its writable paths: ${(error as Error).message}`, performance.now(), [
      spec.command,
      ...spec.args,
    ]);
  }
  try {
    limited = limitsFor(spec.sandbox.limits ?? defaultLimits(), spec.sandbox.rlimitsOnly === true);
  } catch (error) {
    return failedToSpawn(`cannot create the sandbox's cgroup: ${(error as Error).message}`, performance.now(), [
      spec.command,
      ...spec.args,
    ]);
  }
  const network = spec.sandbox.network === "slirp4netns" ? slirpFor() : null;
  if (typeof network === "string")
    return failedToSpawn(`cannot give the sandbox its network: ${network}`, performance.now(), [
      spec.command,
      ...spec.args,
    ]);
  try {
    return await startProcess(spec, limited, network);
  } finally {
    await network?.stop();
    await limited.group?.remove();
  }
}

/** A slirp4netns for one sandbox, or why there can be none (the caller refuses earlier: networkSupport()). */
function slirpFor(): SlirpNetwork | string {
  const found = networkSupport();
  return found.available ? new SlirpNetwork(found.slirp4netns) : found.reason;
}

/** A sandboxed process's limits: the values, the mechanism, its cgroup (if any) and the argv prefixes applying them. */
interface Limited {
  readonly values: ResourceLimits;
  readonly mechanism: LimitMechanism;
  readonly group: LimitGroup | null;
  /** Run before bwrap. */
  readonly prefix: readonly string[];
  /** Run inside the sandbox, before the program. */
  readonly inner: readonly string[];
}

function limitsFor(values: ResourceLimits, rlimitsOnly: boolean): Limited {
  const found = limitMechanism();
  const mechanism = rlimitsOnly && found === "cgroup" ? "rlimit" : found;
  const parents = cgroupParents();
  const group = mechanism !== "cgroup" || typeof parents === "string" ? null : createLimitGroup(parents, values);
  return {
    values,
    mechanism,
    group,
    prefix: [...(group === null ? [] : joinGroupPrefix(group)), ...rlimitPrefix(values)],
    inner: innerRlimitPrefix(values, mechanism),
  };
}

function startProcess(
  spec: ProcessSpec,
  limited: Limited | null,
  network: SlirpNetwork | null = null,
): Promise<ProcessOutcome> {
  const graceMs = spec.graceMs ?? DEFAULT_GRACE_MS;
  const cap = spec.stdoutCapBytes ?? DEFAULT_STDOUT_CAP_BYTES;
  const stderrKeep = spec.stderrKeepBytes ?? DEFAULT_STDERR_KEEP_BYTES;
  const stderrCap = spec.stderrCapBytes ?? Number.POSITIVE_INFINITY;
  const sandboxed =
    spec.sandbox == null
      ? null
      : sandboxArgv(spec.sandbox, [...(limited?.inner ?? []), spec.command, ...spec.args], {
          cwd: spec.cwd,
          env: spec.env,
        });
  const argv = sandboxed === null ? [spec.command, ...spec.args] : [...(limited?.prefix ?? []), ...sandboxed];
  const lingerMs = spec.lingerAfterTerminalMs ?? DEFAULT_LINGER_AFTER_TERMINAL_MS;
  const started = performance.now();

  return new Promise((resolve) => {
    const stdoutChunks: Buffer[] = [];
    let stdoutKept = 0;
    let stdoutBytes = 0;
    const stderrChunks: Buffer[] = [];
    let stderrKept = 0;
    let stderrBytes = 0;
    let stderrTail = Buffer.alloc(0);
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let exited = false;
    let closed = false;
    let stopReason: StopReason | null = null;
    let killed = false;
    let terminalSeen = false;
    let settled = false;
    const lines = new LineBuffer();
    const timers: NodeJS.Timeout[] = [];
    let limitPoll: NodeJS.Timeout | undefined;
    let diskPoll: NodeJS.Timeout | undefined;
    let sampledHit: LimitKind | null = null;

    let child;
    try {
      child = spawn(argv[0]!, argv.slice(1), {
        cwd: spec.cwd,
        // Inside a sandbox the environment is set by bwrap (--setenv), after --clearenv.
        env: sandboxed === null ? { ...spec.env } : {},
        detached: true,
        // Inside a sandbox, SECCOMP_FD carries the seccomp filter to bwrap, LIFELINE_FD the lifeline
        // (lifeline.ts) and, with slirp4netns, INFO_FD and BLOCK_FD its handshake (network.ts).
        stdio:
          sandboxed === null
            ? ["pipe", "pipe", "pipe"]
            : Array<"pipe">((network === null ? LIFELINE_FD : BLOCK_FD) + 1).fill("pipe"),
      });
    } catch (error) {
      resolve(failedToSpawn((error as Error).message, started, argv));
      return;
    }
    const pgid = child.pid ?? null;
    if (pgid !== null) liveGroups.add(pgid);
    let networkError: string | null = null;
    // Held until the outcome is settled: closing it makes the sandbox's reader kill whatever is left inside.
    const lifeline = sandboxed === null ? null : (child.stdio[LIFELINE_FD] as import("node:net").Socket | null);
    lifeline?.on("error", () => {
      // The sandbox is gone: nothing to hold.
    });

    const finish = (spawnError: string | null = null): void => {
      if (settled) return;
      settled = true;
      lifeline?.destroy();
      if (pgid !== null) liveGroups.delete(pgid);
      for (const timer of timers) clearTimeout(timer);
      clearTimeout(limitPoll);
      clearTimeout(diskPoll);
      spec.signal?.removeEventListener("abort", onAbort);
      const tail = lines.end();
      if (tail !== null) spec.onStdoutLine?.(tail);
      resolve({
        stdout: Buffer.concat(stdoutChunks),
        stderr: Buffer.concat(stderrChunks).toString("utf8"),
        stdoutBytes,
        stderrBytes,
        exitCode,
        exitSignal,
        timedOut: stopReason === "timeout",
        stdoutCapped: stopReason === "stdout_cap",
        stderrCapped: stopReason === "stderr_cap",
        aborted: stopReason === "aborted",
        stopReason,
        killed,
        durationMs: Math.round(performance.now() - started),
        spawnError: spawnError ?? networkError,
        pgid,
        argv,
        limits: limited === null ? null : { mechanism: limited.mechanism, values: limited.values },
        limitHit:
          limited === null
            ? null
            : limitHitOf(limited, sampledHit, stopReason, exitCode, exitSignal, [
                ...stderrChunks,
                ...(stderrBytes > stderrKept ? [stderrTail] : []),
              ]),
      });
    };

    const stop = (reason: StopReason): void => {
      if (stopReason !== null || pgid === null) return;
      stopReason = reason;
      signalGroup(pgid, "SIGTERM");
      timers.push(
        setTimeout(() => {
          if (processGroupAlive(pgid)) {
            killed = true;
            signalGroup(pgid, "SIGKILL");
          }
          // A process that escaped the group may still hold the pipes: stop waiting for them.
          timers.push(
            setTimeout(() => {
              child.stdout?.destroy();
              child.stderr?.destroy();
              closed = true;
              maybeFinish();
            }, PIPE_CLOSE_WAIT_MS),
          );
        }, graceMs),
      );
    };

    const maybeFinish = (): void => {
      if (!exited || !closed || settled) return;
      if (pgid !== null && processGroupAlive(pgid)) {
        timers.push(setTimeout(maybeFinish, GROUP_POLL_MS));
        return;
      }
      finish();
    };

    const onAbort = (): void => stop("aborted");
    if (spec.signal?.aborted) queueMicrotask(onAbort);
    else spec.signal?.addEventListener("abort", onAbort, { once: true });

    child.on("error", (error) => {
      // Spawn failure: no process exists, nothing else will fire.
      if (pgid === null) {
        settled = true;
        lifeline?.destroy();
        for (const timer of timers) clearTimeout(timer);
        spec.signal?.removeEventListener("abort", onAbort);
        resolve(failedToSpawn(error.message, started, argv));
      }
    });

    child.stdout.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutKept < cap) {
        const kept = chunk.subarray(0, cap - stdoutKept);
        stdoutChunks.push(kept);
        stdoutKept += kept.length;
        // Lines are split only for a caller that reads them (a stream-json CLI), not for a rubric's one document.
        for (const line of spec.onStdoutLine === undefined ? [] : lines.push(kept)) {
          if (spec.onStdoutLine?.(line) === true && !terminalSeen) {
            terminalSeen = true;
            timers.push(setTimeout(() => stop("after_terminal"), lingerMs));
          }
        }
      }
      if (stdoutBytes > cap) stop("stdout_cap");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderrBytes += chunk.length;
      if (stderrKept < stderrKeep) {
        const kept = chunk.subarray(0, stderrKeep - stderrKept);
        stderrChunks.push(kept);
        stderrKept += kept.length;
      }
      stderrTail = Buffer.concat([stderrTail, chunk]).subarray(-STDERR_TAIL_BYTES);
      if (stderrBytes > stderrCap) stop("stderr_cap");
    });
    child.stdin.on("error", () => {
      // EPIPE: the CLI exited without reading its stdin; its stream says why.
    });
    child.stdin.end(spec.stdin ?? "");
    if (sandboxed !== null) {
      const filterPipe = child.stdio[SECCOMP_FD] as import("node:stream").Writable | null;
      filterPipe?.on("error", () => {
        // bwrap failed before reading its filter: its exit says why.
      });
      filterPipe?.end(seccompFilter());
    }
    // The program waits on BLOCK_FD until its network is up; if it cannot be made, the sandbox is killed
    // before the program runs (never run without the network it was promised, nor with another).
    if (network !== null && pgid !== null) {
      const pipes = child.stdio as unknown as readonly (Readable & Writable)[];
      network.connect(pipes[INFO_FD]!, pipes[BLOCK_FD]!).catch((error: unknown) => {
        if (settled) return;
        networkError = `cannot give the sandbox its network: ${(error as Error).message}`;
        signalGroup(pgid, "SIGKILL");
      });
    }

    child.on("exit", (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      // Children the CLI left behind (helpers, a relaunched copy of itself) must not outlive it.
      if (pgid !== null && processGroupAlive(pgid)) stop("leader_exited");
      maybeFinish();
    });
    // stdout and stderr closed (not the child's "close", which would wait for the lifeline too).
    let openStreams = 2;
    for (const stream of [child.stdout, child.stderr])
      stream.on("close", () => {
        openStreams -= 1;
        if (openStreams > 0) return;
        closed = true;
        maybeFinish();
      });

    if (pgid !== null) timers.push(setTimeout(() => stop("timeout"), spec.timeoutMs));
    const check = pgid === null || limited === null ? null : limitCheck(limited, pgid);
    if (check !== null) {
      // A process-count limit refuses forks but kills nothing: a fork bomb would spin until its deadline.
      const poll = (delayMs: number): void => {
        limitPoll = setTimeout(() => {
          const started = performance.now();
          const hit = check();
          if (hit !== null) {
            sampledHit = hit;
            stop("resource_limit");
          } else poll(Math.max(LIMIT_POLL_MS, (performance.now() - started) * TREE_SCAN_SPACING));
        }, delayMs);
      };
      poll(LIMIT_POLL_MS);
    }
    // The disk limit's total: what the writable trees allocate, summed while the process runs.
    const watched = pgid === null || limited === null || spec.sandbox == null ? [] : writableRoots(spec.sandbox);
    const watchDisk = (delayMs: number): void => {
      diskPoll = setTimeout(() => {
        const started = performance.now();
        void allocatedBytes(watched, limited!.values.diskBytes).then((used) => {
          if (settled) return;
          if (used > limited!.values.diskBytes) {
            sampledHit ??= "disk";
            stop("resource_limit");
          } else watchDisk(Math.max(DISK_POLL_MS, (performance.now() - started) * TREE_SCAN_SPACING));
        });
      }, delayMs);
    };
    if (watched.length > 0) watchDisk(DISK_POLL_MS);
  });
}

/** The host paths a sandbox may write: its writable paths and writable binds. */
function writableRoots(policy: SandboxPolicy): string[] {
  const binds = (policy.binds ?? []).filter((bind) => bind.readOnly !== true).map((bind) => bind.source);
  return [...new Set([...(policy.writable ?? []), ...binds])];
}

/**
 * What tells, while it runs, that a sandboxed process reached its process-count limit: its cgroup's
 * counter, or on the rlimit path its task count (the kernel refuses the next fork), or null without either.
 */
function limitCheck(limited: Limited, pgid: number): (() => LimitKind | null) | null {
  const group = limited.group;
  if (group !== null) return () => (group.hit() === "pids" ? "pids" : null);
  if (limited.mechanism !== "rlimit") return null;
  const uid = sandboxOwner()?.uid ?? process.getuid?.() ?? 0;
  return () => (sandboxTasks(pgid, uid) >= limited.values.pids ? "pids" : null);
}

/**
 * The limit a finished sandboxed process hit: its cgroup's counters, what was seen while it ran, the
 * file-size limit, or (rlimit path, a program that ended on its own) a failed allocation.
 */
function limitHitOf(
  limited: Limited,
  sampled: LimitKind | null,
  stopReason: StopReason | null,
  exitCode: number | null,
  exitSignal: string | null,
  stderr: readonly Buffer[],
): LimitKind | null {
  // What it kept of stderr's start and, when more came, its end (where a runtime reports its failure).
  const tail = Buffer.concat(stderr).toString("utf8");
  const hit = limited.group?.hit() ?? sampled ?? fileSizeHit(exitCode, exitSignal, tail);
  if (hit !== null) return hit;
  return limited.mechanism === "rlimit" && stopReason === null && allocationFailed(exitCode, tail) ? "memory" : null;
}

/**
 * Whether the file-size limit stopped a write: the program was killed by SIGXFSZ (bwrap exits 128+25 for
 * its child), or it failed saying EFBIG ("File too large", errno 27) as most programs report it. A
 * program may print that text without cause: it then fails all the same, only under another name.
 */
function fileSizeHit(exitCode: number | null, exitSignal: string | null, stderr: string): LimitKind | null {
  if (exitCode === 0) return null;
  return exitSignal === "SIGXFSZ" || exitCode === 128 + 25 || /File too large|\[Errno 27\]|EFBIG/.test(stderr)
    ? "disk"
    : null;
}

function failedToSpawn(message: string, started: number, argv: readonly string[]): ProcessOutcome {
  return {
    stdout: Buffer.alloc(0),
    stderr: "",
    stdoutBytes: 0,
    stderrBytes: 0,
    exitCode: null,
    exitSignal: null,
    timedOut: false,
    stdoutCapped: false,
    stderrCapped: false,
    aborted: false,
    stopReason: null,
    killed: false,
    durationMs: Math.round(performance.now() - started),
    spawnError: message,
    pgid: null,
    argv,
    limits: null,
    limitHit: null,
  };
}
