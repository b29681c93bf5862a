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
    expect(await oneLine(["rn", "--task-class", "x"])).toBe("evalgate: unknown command \"rn\"; the closest is `evalgate run` (EVAL_USAGE); run `evalgate --help` for the commands");
    expect(await oneLine(["verfy"])).toMatch(/unknown command "verfy"; the closest is `evalgate verify`/);
    expect(await oneLine(["bench", "shw", "x"])).toMatch(/unknown command "bench shw"; the closest is `evalgate bench show`/);
    expect(await oneLine(["adapters", "complance-check"])).toMatch(/the closest is `evalgate adapters compliance-check`/);
  });

  it("a command missing a required option says which (was: \"Command not found\")", async () => {
    expect(await oneLine(["run"])).toBe("evalgate: `evalgate run` needs --task-class (or --plan <file> with --shard i/N) (EVAL_USAGE); run `evalgate run --help` for the accepted flags");
    expect(await oneLine(["transcript", "import"])).toMatch(/`evalgate transcript import` needs --provider/);
    expect(await oneLine(["promote-verdict", "--format", "human"])).toMatch(/`evalgate promote-verdict` needs --task-class/);
  });

  it("a group without its subcommand, an unknown option, a missing value, an extra argument", async () => {
    expect(await oneLine(["bench"])).toBe("evalgate: `evalgate bench` needs a subcommand: list, show, sign, check (EVAL_USAGE); run `evalgate --help` for the commands");
    expect(await oneLine(["--bogus"])).toMatch(/unknown option --bogus where a command was expected/);
    expect(await oneLine(["run", "--task-class", "x", "--bogus"])).toMatch(/`evalgate run`: Unsupported option name \("--bogus"\) \(EVAL_USAGE\); run `evalgate run --help`/);
    expect(await oneLine(["run", "--task-class"])).toMatch(/Not enough arguments to option --task-class/);
    expect(await oneLine(["schemas", "a", "b"])).toMatch(/`evalgate schemas`: unexpected argument "b"/);
  });

  it("help and version are unchanged", async () => {
    expect((await invoke(["--help"])).stdout).toMatch(/\$ evalgate <command>/);
    expect((await invoke(["--version"])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
