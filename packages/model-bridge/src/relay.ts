// The relay inside the sandbox: it listens on 127.0.0.1:<port> in the sandbox's own network namespace, pipes
// each connection to the bridge's unix socket, and only once it listens starts the agent CLI (so the CLI's
// first call never races it). It holds nothing secret: the key it could see is the case's dummy key.
//
// Two relays, one contract. With Debian's `socat` (a few MiB resident, less CPU and latency per request):
// a POSIX shell starts socat with its notices on a pipe, waits for its "listening on" line (socat prints it
// after listen() returns), then drains the pipe, runs the CLI and stops socat when the CLI exits, exiting
// with the CLI's status. Without socat: a few lines of the Node the harness runs, which listens itself,
// then spawns the CLI and exits with its status. Either way a relay that cannot
// listen exits 125 before the CLI starts, saying why on stderr.
import { accessSync, constants } from "node:fs";

/** The port the relay listens on inside every sandbox (each sandbox has its own loopback, so one fixed port serves all). */
export const RELAY_PORT = 47_291;

const NODE_RELAY_SOURCE = `
const net = require("node:net");
const { spawn } = require("node:child_process");
const [port, socketPath, command, ...args] = process.argv.slice(1);
const server = net.createServer({ noDelay: true }, (client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream).pipe(client);
  const drop = () => { client.destroy(); upstream.destroy(); };
  client.on("error", drop);
  upstream.on("error", drop);
});
server.on("error", (error) => { process.stderr.write("evalgate relay: " + error.message + "\\n"); process.exit(125); });
server.listen(Number(port), "127.0.0.1", () => {
  const child = spawn(command, args, { stdio: "inherit" });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => { process.stderr.write("evalgate relay: cannot start " + command + ": " + error.message + "\\n"); process.exit(127); });
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (require("node:os").constants.signals[signal] ?? 0)));
});
`;

// $1 port, $2 bridge socket, $3 socat, then the CLI and its arguments. The FIFO lives in a private directory
// removed as soon as both ends are open; socat's later notices (one per connection) are drained to nowhere.
// The CLI runs in the foreground (its stdin, stdout and stderr are the relay's); when it exits, socat is stopped.
const SOCAT_RELAY_SCRIPT = `
set -u
port=$1 socket=$2 socat=$3
shift 3
dir=$(mktemp -d "\${TMPDIR:-/tmp}/evalgate-relay.XXXXXX") || exit 125
mkfifo "$dir/notices" || exit 125
"$socat" -d -d "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork,nodelay,backlog=128" "UNIX-CONNECT:$socket" </dev/null >/dev/null 2>"$dir/notices" &
relay=$!
exec 3<"$dir/notices"
rm -rf "$dir"
seen=""
while IFS= read -r line <&3; do
  case $line in
    *" listening on "*)
      cat <&3 >/dev/null 2>&1 3<&- &
      exec 3<&-
      "$@"
      status=$?
      kill "$relay" 2>/dev/null
      exit "$status"
      ;;
  esac
  seen="$seen$line
"
done
printf 'evalgate relay: socat did not listen on 127.0.0.1:%s\\n%s' "$port" "$seen" >&2
exit 125
`;

export interface RelayOptions {
  /** The Node that runs the fallback relay (visible in the sandbox). */
  readonly nodePath: string;
  /** socat's path (visible in the sandbox), or null to use the Node relay. */
  readonly socatPath: string | null;
  readonly socketPath: string;
  /** Where the relay listens on 127.0.0.1; default RELAY_PORT. */
  readonly port?: number;
}

/**
 * The command and arguments that, run inside the sandbox, start the relay and, once it listens, `command args`:
 * `/bin/sh -c <script> evalgate-relay <port> <socket> <socat> <command> <args...>` with socat,
 * `node -e <relay> <port> <socket> <command> <args...>` without.
 */
export function relayInvocation(
  options: RelayOptions,
  command: string,
  args: readonly string[],
): { readonly command: string; readonly args: readonly string[] } {
  const port = String(options.port ?? RELAY_PORT);
  if (options.socatPath !== null)
    return {
      command: "/bin/sh",
      args: ["-c", SOCAT_RELAY_SCRIPT, "evalgate-relay", port, options.socketPath, options.socatPath, command, ...args],
    };
  return { command: options.nodePath, args: ["-e", NODE_RELAY_SOURCE, port, options.socketPath, command, ...args] };
}

/** Where Debian installs socat: the first of these that exists (the sandbox shows the system's /usr read-only). */
const SOCAT_CANDIDATES = ["/usr/bin/socat", "/bin/socat", "/usr/local/bin/socat"];

/** socat's path when it is installed in a system directory, else null (the Node relay then serves). */
export function findSocat(): string | null {
  return SOCAT_CANDIDATES.find(isExecutable) ?? null;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
