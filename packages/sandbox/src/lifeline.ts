// Nothing of a sandbox outlives the harness that started it. bwrap's --die-with-parent is PR_SET_PDEATHSIG,
// an edge each of its processes arms only when its own set-up is done: a harness that dies while a sandbox
// is being built (measured: SIGKILL 0-40 ms after the spawn) leaves that sandbox running for good, its
// init reparented to the host's. A lifeline is a level instead: the harness holds one end of a socket pair
// for as long as the process runs, and a reader inside the sandbox (started before the program, after the
// uid drop) waits on the other end. When the harness's end closes (the harness died, or runProcess is done
// with the process), the reader kills every process it can signal in the sandbox's PID namespace, again
// until none is left (a process forking meanwhile is caught on the next round). The sandbox's own init
// (bwrap) then has no child left and exits, and with it the sandbox.

/** The descriptor the lifeline's sandbox end is on (after SECCOMP_FD). */
export const LIFELINE_FD = 4;

/**
 * The reader, then the program: `kill -KILL -1` reaches only the sandbox's PID namespace (every sandbox has
 * its own; never run this outside one), and never its init. The reader holds no stdio of the program's
 * (the harness waits for those to close), and the program does not get the lifeline.
 */
const SCRIPT = [
  `(read -r _ <&${LIFELINE_FD}; while kill -KILL -1 2>/dev/null; do :; done) </dev/null >/dev/null 2>&1 &`,
  `exec "$@" ${LIFELINE_FD}<&-`,
].join("\n");

/** The argv prefix run inside the sandbox, before the program: `/bin/sh -c <reader> evalgate-lifeline`. */
export function lifelinePrefix(): string[] {
  return ["/bin/sh", "-c", SCRIPT, "evalgate-lifeline"];
}
