import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { EvalgateCommand } from "../base-command.ts";
import { ExitCode } from "../exit-codes.ts";

export class CompletionCommand extends EvalgateCommand {
  static override paths = [["completion"]];
  static override usage = Command.Usage({
    category: "Setup",
    description: "Print the shell completion script for bash, zsh or fish",
    details: `
      Completes commands, subcommands and each command's options (an option's value completes as a file).
      Load it from your shell's start-up file: eval "$(evalgate completion bash)" in ~/.bashrc,
      eval "$(evalgate completion zsh)" in ~/.zshrc after compinit, evalgate completion fish | source in fish.
    `,
    examples: [
      ["The bash script", "evalgate completion bash"],
      ["The zsh script (it uses zsh's bashcompinit)", "evalgate completion zsh"],
      ["The fish script", "evalgate completion fish"],
    ],
  });

  shell = Option.String({ required: true, name: "shell" });

  protected async run(): Promise<number> {
    const { COMPLETION_SHELLS, completionCommands, completionScript } = await import("../completion.ts");
    const shell = COMPLETION_SHELLS.find((name) => name === this.shell);
    if (shell === undefined)
      throw new EvalError("EVAL_USAGE", `no completion for shell "${this.shell}"`, {
        hint: `choose one of: ${COMPLETION_SHELLS.join(", ")}`,
      });
    // Every command is registered for `completion` (reachableCommands), with its values named (cli.ts).
    const definitions = this.cli.definitions();
    this.context.stdout.write(completionScript(shell, completionCommands(definitions)));
    return ExitCode.ok;
  }
}
