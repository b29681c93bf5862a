// How many tasks a sandbox holds, read from /proc: on the rlimit path the kernel refuses a fork past
// RLIMIT_NPROC but records nothing, so the harness counts the sandbox's tasks itself (a fork bomb sits at
// its limit). This kernel has no /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN is optional), so the
// tree is rebuilt from every process's parent: one read of /proc/<pid>/stat per host process.
import { readdirSync, readFileSync, statSync } from "node:fs";

interface Task {
  readonly ppid: number;
  readonly threads: number;
}

/** ppid and thread count of `/proc/<pid>/stat` (fields 4 and 20; the name in field 2 may hold spaces or parentheses). */
function readTask(pid: string): Task | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null; // Gone meanwhile.
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(fields[1]), threads: Number(fields[17]) };
}

/**
 * The tasks (threads included, as RLIMIT_NPROC counts them) of the processes below `root`, not `root`
 * itself, that belong to host uid `uid`: the processes the sandbox's process-count limit applies to
 * (as root, bwrap's own init below `root` keeps uid 0 and is not counted by the kernel either).
 */
export function sandboxTasks(root: number, uid: number): number {
  const children = new Map<number, number[]>();
  const tasks = new Map<number, Task>();
  for (const entry of readdirSync("/proc")) {
    if (entry.charCodeAt(0) > 57) continue; // Not a pid: "self", "sys", ...
    const task = readTask(entry);
    if (task === null) continue;
    const pid = Number(entry);
    tasks.set(pid, task);
    const siblings = children.get(task.ppid);
    if (siblings === undefined) children.set(task.ppid, [pid]);
    else siblings.push(pid);
  }
  let count = 0;
  const pending = [...(children.get(root) ?? [])];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    pending.push(...(children.get(pid) ?? []));
    try {
      if (statSync(`/proc/${pid}`).uid === uid) count += tasks.get(pid)!.threads;
    } catch {
      // Gone meanwhile.
    }
  }
  return count;
}
