// Looks at a sandboxed process from the host, where what it says about itself cannot be trusted: a
// process names itself (writes a nonce to /proc/self/comm) and the test reads its real uid from the
// host's /proc/<pid>/status.
import { readdirSync, readFileSync } from "node:fs";

/** The host uids (real, effective, saved, filesystem) of the process whose comm is `comm`, or null. */
function uidsOfComm(comm: string): number[] | null {
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== comm) continue;
      const line = readFileSync(`/proc/${pid}/status`, "utf8")
        .split("\n")
        .find((entry) => entry.startsWith("Uid:"));
      if (line !== undefined) return line.slice(4).trim().split(/\s+/).map(Number);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return null;
}

/**
 * Polls the host's /proc until a process named `comm` (at most 15 characters) appears, and resolves its
 * host uids; null when none appeared within `timeoutMs`.
 */
export async function hostUidsOf(comm: string, timeoutMs = 20_000): Promise<number[] | null> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const uids = uidsOfComm(comm);
    if (uids !== null) return uids;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return null;
}

/** Host processes whose command line contains `marker`, as `pid: command line` (none of them this process). */
export function hostProcessesMatching(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      if (cmdline.includes(marker)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return found;
}

/** SIGKILLs, by pid, every host process whose command line contains `marker` (what a failed test left running). */
export function killHostProcesses(marker: string): void {
  for (const line of hostProcessesMatching(marker)) {
    try {
      process.kill(Number(line.split(":")[0]), "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}
