import { Command } from "clipanion";
import type { CommandClass } from "clipanion";
import { COMMANDS } from "./commands.ts";
import type { EvalgateContext } from "./context.ts";

/**
 * Every command as a class that only describes it: what `evalgate --help` lists and what an unknown
 * command is matched against. None of them can run: no argv that reaches a command gets these.
 */
export function listedCommands(): Array<CommandClass<EvalgateContext>> {
  return COMMANDS.map(
    (entry) =>
      class ListedCommand extends Command<EvalgateContext> {
        static override paths = [[...entry.path]];
        static override usage = Command.Usage({ category: entry.category, description: entry.description });
        override execute(): Promise<number> {
          return Promise.reject(new Error(`evalgate ${entry.path.join(" ")} was listed, not loaded`));
        }
      },
  );
}
