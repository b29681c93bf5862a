// Who holds a lock or a claim: the owning process's pid, host and start time, and whether it is still there.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

export interface ProcessOwner {
  readonly pid: number;
  readonly host: string;
  readonly started_at: string;
  /** The process's start time in clock ticks since boot (`/proc/<pid>/stat`), so a reused pid is not taken for the owner. */
  readonly proc_start: string | null;
}

/** A process's start time from `/proc/<pid>/stat` (field 22), or null where there is no /proc or no such process. */
function processStart(pid: number | "self"): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists on this host (one that is not ours to signal counts: EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** This process as an owner. */
export function currentOwner(): ProcessOwner {
  return { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), proc_start: processStart("self") };
}

/** An owner from its JSON text, or null when the text is not one (torn, foreign, empty). */
export function parseOwner(text: string): ProcessOwner | null {
  let value: Partial<ProcessOwner>;
  try {
    value = JSON.parse(text) as Partial<ProcessOwner>;
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { pid, host, started_at: startedAt, proc_start: procStart } = value;
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0 || typeof host !== "string") return null;
  return {
    pid,
    host,
    started_at: typeof startedAt === "string" ? startedAt : "",
    proc_start: typeof procStart === "string" ? procStart : null,
  };
}

/**
 * Whether an owner is still there: `"live"` (a process of this host that is still the one recorded),
 * `"dead"` (its pid is gone, or now belongs to a process started at another time), or `"foreign"` (another
 * host's process: it cannot be checked from here).
 */
export function ownerState(owner: ProcessOwner): "live" | "dead" | "foreign" {
  if (owner.host !== hostname()) return "foreign";
  if (!processAlive(owner.pid)) return "dead";
  const start = owner.proc_start === null ? null : processStart(owner.pid);
  return start !== null && start !== owner.proc_start ? "dead" : "live";
}
