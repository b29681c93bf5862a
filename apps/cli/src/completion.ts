// Shell completion scripts for bash, zsh and fish, generated from the commands' own definitions: the
// command words, each group's subcommands and each command's options (those taking a value complete files).

/** One command as completion needs it: its words after `evalgate` and its option names. */
export interface CompletionCommand {
  readonly words: readonly string[];
  /** Long and short option names, e.g. `--task-class`, `-o`. */
  readonly options: readonly string[];
  /** Those of them that take a value. */
  readonly valued: readonly string[];
}

export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** The commands of `Cli.definitions()` (`path` "evalgate bench show", option `definition` "-o,--output <file>"). */
export function completionCommands(
  definitions: ReadonlyArray<{
    readonly path: string;
    readonly options: ReadonlyArray<{ readonly definition: string }>;
  }>,
): CompletionCommand[] {
  return definitions
    .map((definition) => ({
      words: definition.path.split(" ").slice(1),
      options: ["--help", ...definition.options.flatMap((option) => option.definition.split(" ")[0]!.split(","))],
      valued: definition.options
        .filter((option) => option.definition.includes(" "))
        .flatMap((option) => option.definition.split(" ")[0]!.split(",")),
    }))
    .filter((command) => command.words.length > 0 && command.words.every((word) => /^[a-z][a-z0-9-]*$/.test(word)));
}

/** What may follow each typed prefix of command words: subcommands for "" and groups, options for commands. */
function candidates(commands: readonly CompletionCommand[]): Map<string, string[]> {
  const table = new Map<string, string[]>();
  const add = (key: string, words: readonly string[]): void => {
    const list = table.get(key) ?? [];
    for (const word of words) if (!list.includes(word)) list.push(word);
    table.set(key, list);
  };
  for (const command of commands) {
    for (let i = 0; i < command.words.length; i++) add(command.words.slice(0, i).join(" "), [command.words[i]!]);
    add(command.words.join(" "), command.options);
  }
  return table;
}

function bash(commands: readonly CompletionCommand[]): string {
  const cases = [...candidates(commands)]
    .map(([key, words]) => `    "${key}") words="${words.join(" ")}" ;;`)
    .join("\n");
  return `# evalgate completion for bash (and zsh through bashcompinit): eval "$(evalgate completion bash)"
_evalgate_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" typed="" word words="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && break
    typed="\${typed:+$typed }$word"
  done
  case "$typed" in
${cases}
  esac
  # After a command's words, options on "-" and files otherwise (complete -o default).
  if [[ "$words" == -* && "$cur" != -* ]]; then COMPREPLY=(); return 0; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _evalgate_complete evalgate
`;
}

function zsh(commands: readonly CompletionCommand[]): string {
  return `# evalgate completion for zsh: eval "$(evalgate completion zsh)" (after compinit)
autoload -U +X bashcompinit && bashcompinit
${bash(commands).split("\n").slice(1).join("\n")}`;
}

function fish(commands: readonly CompletionCommand[]): string {
  const lines = ["# evalgate completion for fish: evalgate completion fish | source", "complete -c evalgate -f"];
  // fish decides by the words typed so far: a function prints them (options and their values dropped).
  lines.push(
    "function __evalgate_path",
    "    set -l words (commandline -opc)[2..-1]",
    "    set -l path",
    "    for w in $words",
    "        string match -q -- '-*' $w; and break",
    "        set -a path $w",
    "    end",
    "    echo (string join ' ' $path)",
    "end",
  );
  const valued = new Map(commands.map((command) => [command.words.join(" "), command.valued]));
  for (const [key, words] of candidates(commands)) {
    const condition = `"test (__evalgate_path) = '${key}'"`;
    const subcommands = words.filter((word) => !word.startsWith("-"));
    if (subcommands.length > 0) lines.push(`complete -c evalgate -n ${condition} -a "${subcommands.join(" ")}"`);
    // A command's own arguments (bundles, files) and its options' values complete as files.
    else lines.push(`complete -c evalgate -n ${condition} -F`);
    for (const option of words.filter((word) => word.startsWith("-"))) {
      const value = valued.get(key)?.includes(option) === true ? " -r -F" : "";
      lines.push(
        `complete -c evalgate -n ${condition} ${option.startsWith("--") ? `-l ${option.slice(2)}` : `-s ${option.slice(1)}`}${value}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

/** The completion script of one shell. */
export function completionScript(shell: CompletionShell, commands: readonly CompletionCommand[]): string {
  return shell === "bash" ? bash(commands) : shell === "zsh" ? zsh(commands) : fish(commands);
}
