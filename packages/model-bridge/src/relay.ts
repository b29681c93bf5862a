// The relay inside the sandbox: a few lines run by the Node the agent already has. It listens on
// 127.0.0.1:<port> in the sandbox's own network namespace, pipes each connection to the bridge's unix
// socket, and only once it listens starts the agent CLI (so the CLI's first call never races it); it exits
// with the CLI's exit status. It holds nothing secret: the key it could see is the case's dummy key.

/** The port the relay listens on inside every sandbox (each sandbox has its own loopback, so one fixed port serves all). */
export const RELAY_PORT = 47_291;

const RELAY_SOURCE = `
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

/**
 * The command and arguments that, run inside the sandbox, start the relay and then `command args`:
 * `node -e <relay> <port> <socket> <command> <args...>`.
 */
export function relayInvocation(nodePath: string, socketPath: string, command: string, args: readonly string[]): { readonly command: string; readonly args: readonly string[] } {
  return { command: nodePath, args: ["-e", RELAY_SOURCE, String(RELAY_PORT), socketPath, command, ...args] };
}
