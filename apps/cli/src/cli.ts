import { Builtins, Cli } from "clipanion";
import { COMMANDS } from "./commands.ts";
import type { EvalgateContext } from "./context.ts";
import { renderError } from "./render-error.ts";
import { usageError } from "./usage-error.ts";
import { HARNESS_VERSION } from "./version.ts";

export interface RunCliOptions {
  readonly stdin?: NodeJS.ReadableStream;
  readonly stdout?: NodeJS.WritableStream;
  readonly stderr?: NodeJS.WritableStream;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

/** Runs one evalgate invocation and resolves to its exit code. Never exits the process. */
export async function runCli(argv: readonly string[], options: RunCliOptions = {}): Promise<number> {
  const cli = new Cli<EvalgateContext>({
    binaryLabel: "evalgate",
    binaryName: "evalgate",
    binaryVersion: HARNESS_VERSION,
    enableColors: false,
  });
  cli.register(Builtins.HelpCommand);
  cli.register(Builtins.VersionCommand);
  for (const command of COMMANDS) cli.register(command);
  const context: EvalgateContext = {
    stdin: (options.stdin ?? process.stdin) as EvalgateContext["stdin"],
    stdout: (options.stdout ?? process.stdout) as EvalgateContext["stdout"],
    stderr: (options.stderr ?? process.stderr) as EvalgateContext["stderr"],
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    colorDepth: 1,
  };
  // Usage errors are diagnostics, not data: one line on stderr (clipanion would print pages of usage on stdout).
  let command;
  try {
    command = cli.process([...argv], context);
  } catch (error) {
    const rendered = renderError(usageError(argv, cli.definitions(), (error as Error).message), false);
    context.stderr.write(rendered.text);
    return rendered.exitCode;
  }
  return cli.run(command, context);
}
