import { reachableCommands } from "./commands.ts";
import type { EvalgateContext } from "./context.ts";
import { answerWithoutParser } from "./help.ts";
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
  const answer = answerWithoutParser(argv, "evalgate", HARNESS_VERSION);
  if (answer !== null) {
    (options.stdout ?? process.stdout).write(answer);
    return 0;
  }
  const [{ Builtins, Cli }, { withPlaceholders }] = await Promise.all([
    import("clipanion"),
    import("./placeholders.ts"),
  ]);
  /** Usage text and definitions with each option's value named (`--task-class <name>`), not `#0`. */
  class EvalgateCli extends Cli<EvalgateContext> {
    protected override getUsageByIndex(
      n: number,
      opts?: { detailed?: boolean; inlineOptions?: boolean },
    ): { usage: string; options: Array<{ definition: string; description: string; required: boolean }> } {
      const { usage, options } = super.getUsageByIndex(n, opts);
      return {
        usage: withPlaceholders(usage),
        options: options.map((option) => ({ ...option, definition: withPlaceholders(option.definition) })),
      };
    }
  }
  const cli = new EvalgateCli({
    binaryLabel: "evalgate",
    binaryName: "evalgate",
    binaryVersion: HARNESS_VERSION,
    enableColors: false,
  });
  cli.register(Builtins.HelpCommand);
  cli.register(Builtins.VersionCommand);
  // Only the commands argv can reach are loaded, so start-up does not grow with their number.
  const reachable = await reachableCommands(argv);
  for (const command of reachable.length > 0 ? reachable : (await import("./listed-commands.ts")).listedCommands())
    cli.register(command);
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
    // Loaded only on this path: a command line that parses never pays for them.
    const [{ renderError }, { usageError }] = await Promise.all([
      import("./render-error.ts"),
      import("./usage-error.ts"),
    ]);
    const rendered = renderError(usageError(argv, cli.definitions(), (error as Error).message), false);
    context.stderr.write(rendered.text);
    return rendered.exitCode;
  }
  return cli.run(command, context);
}
