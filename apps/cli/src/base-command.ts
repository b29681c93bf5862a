import { Command, Option } from "clipanion";
import type { EvalgateContext } from "./context.ts";
import { renderError } from "./render-error.ts";

/**
 * Every evalgate command: `run()` maps flags to a library call and prints the data it returns.
 * Errors never escape as stack traces: they become one line and an exit code (`--debug` adds the stack).
 */
export abstract class EvalgateCommand extends Command<EvalgateContext> {
  debug = Option.Boolean("--debug", false, { description: "Show stack traces for errors" });

  protected abstract run(): Promise<number>;

  override async execute(): Promise<number> {
    try {
      return await this.run();
    } catch (error) {
      const debug = this.debug || this.context.env.EVALGATE_DEBUG === "1";
      const rendered = renderError(error, debug);
      this.context.stderr.write(rendered.text);
      return rendered.exitCode;
    }
  }

  /** Writes one JSON document as one line on stdout. */
  protected emit(value: unknown): void {
    this.context.stdout.write(`${JSON.stringify(value)}\n`);
  }
}
