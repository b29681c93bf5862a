import { describe, expect, it } from "vitest";
import { invoke } from "./test-helpers.ts";

/** Each bad command line gets exactly one line on stderr, nothing on stdout, and the usage exit code. */
async function oneLine(argv: string[]): Promise<string> {
  const result = await invoke(argv);
  expect(result.code, argv.join(" ")).toBe(1);
  expect(result.stdout, argv.join(" ")).toBe("");
  const lines = result.stderr.split("\n").filter((line) => line !== "");
  expect(lines, argv.join(" ")).toHaveLength(1);
  return lines[0]!;
}

describe("a command line clipanion cannot match", () => {
  it("an unknown command names the closest one and --help (was: 20 lines of usage)", async () => {
    expect(await oneLine(["rn", "--task-class", "x"])).toBe(
      'evalgate: unknown command "rn"; the closest is `evalgate run` (EVAL_USAGE); run `evalgate --help` for the commands',
    );
    expect(await oneLine(["verfy"])).toMatch(/unknown command "verfy"; the closest is `evalgate verify`/);
    expect(await oneLine(["bench", "shw", "x"])).toMatch(
      /unknown command "bench shw"; the closest is `evalgate bench show`/,
    );
    expect(await oneLine(["adapters", "complance-check"])).toMatch(
      /the closest is `evalgate adapters compliance-check`/,
    );
  });

  it('a command missing a required option says which (was: "Command not found")', async () => {
    expect(await oneLine(["run"])).toBe(
      "evalgate: `evalgate run` needs --task-class (or --plan <file> with --shard i/N) (EVAL_USAGE); run `evalgate run --help` for the accepted flags",
    );
    expect(await oneLine(["transcript", "import"])).toMatch(/`evalgate transcript import` needs --provider/);
    expect(await oneLine(["promote-verdict", "--format", "human"])).toMatch(
      /`evalgate promote-verdict` needs --task-class/,
    );
  });

  it("a group without its subcommand, an unknown option, a missing value, an extra argument", async () => {
    expect(await oneLine(["bench"])).toBe(
      "evalgate: `evalgate bench` needs a subcommand: list, show, sign, check (EVAL_USAGE); run `evalgate --help` for the commands",
    );
    expect(await oneLine(["--bogus"])).toMatch(/unknown option --bogus where a command was expected/);
    expect(await oneLine(["run", "--task-class", "x", "--bogus"])).toBe(
      "evalgate: `evalgate run`: unknown option --bogus (EVAL_USAGE); run `evalgate run --help` for the accepted flags",
    );
    expect(await oneLine(["run", "--task-class"])).toMatch(/Not enough arguments to option --task-class/);
    expect(await oneLine(["schemas", "a", "b"])).toMatch(/`evalgate schemas`: unexpected argument "b"/);
  });

  it("an unknown option names the closest accepted one, and is blamed before a positional (was: the run id)", async () => {
    expect(await oneLine(["run", "--task-clas", "upper"])).toBe(
      "evalgate: `evalgate run`: unknown option --task-clas; did you mean --task-class? (EVAL_USAGE); run `evalgate run --help` for the accepted flags",
    );
    expect(await oneLine(["verify", "--formt=jsonl"])).toMatch(
      /`evalgate verify`: unknown option --formt; did you mean --format\?/,
    );
    expect(await oneLine(["run", "--task-class", "x", "--no-cach"])).toMatch(
      /unknown option --no-cach; did you mean --no-cache\?/,
    );
    expect(await oneLine(["show", "some-run", "--bogus"])).toBe(
      "evalgate: `evalgate show`: unknown option --bogus (EVAL_USAGE); run `evalgate show --help` for the accepted flags",
    );
    expect(await oneLine(["report", "-x"])).toMatch(/`evalgate report`: unknown option -x \(EVAL_USAGE\)/);
  });

  it("every command's help names each option's value (--task-class <name>), never clipanion's #0", async () => {
    const { COMMANDS } = await import("./commands.ts");
    for (const entry of COMMANDS) {
      const help = await invoke([...entry.path, "--help"]);
      expect(help.code, entry.path.join(" ")).toBe(0);
      expect(help.stdout, entry.path.join(" ")).not.toMatch(/ #\d|<value>/);
    }
    expect((await invoke(["run", "--help"])).stdout).toMatch(/\n {2}--task-class <name> +The task class to run/);
    expect((await invoke(["report", "--help"])).stdout).toMatch(/\n {2}-o,--output <file> +The HTML file/);
  });

  it("help and version are unchanged", async () => {
    expect((await invoke(["--help"])).stdout).toMatch(/\$ evalgate <command>/);
    expect((await invoke(["--version"])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
