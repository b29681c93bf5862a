// The command table is what `evalgate --help` lists without loading any command: it must say what each
// command's own class says, and name every command there is.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS, reachableCommands } from "./commands.ts";
import { answerWithoutParser, topLevelHelp } from "./help.ts";
import { listedCommands } from "./listed-commands.ts";

const commandsDir = join(import.meta.dirname, "commands");

describe("the command table", () => {
  it("gives each command the path, category and description its class declares", async () => {
    for (const entry of COMMANDS) {
      const command = await entry.load();
      expect(command.paths, entry.path.join(" ")).toEqual([entry.path]);
      expect(command.usage?.category, entry.path.join(" ")).toBe(entry.category);
      expect(command.usage?.description, entry.path.join(" ")).toBe(entry.description);
    }
  });

  it("names every command class under commands/", () => {
    const declared = readdirSync(commandsDir)
      .filter((file) => file.endsWith(".ts") && !file.includes(".test"))
      .flatMap((file) =>
        [...readFileSync(join(commandsDir, file), "utf8").matchAll(/static override paths = \[\[([^\]]*)\]\]/g)].map(
          (match) => match[1]!,
        ),
      )
      .map((paths) => paths.replaceAll('"', "").split(", ").join(" "))
      .sort();
    expect(COMMANDS.map((entry) => entry.path.join(" ")).sort()).toEqual(declared);
  });

  it("loads only the commands an argv's first word reaches", async () => {
    expect((await reachableCommands(["verify", "--strict"])).map((command) => command.paths)).toEqual([[["verify"]]]);
    expect(
      (await reachableCommands(["adapters", "doctor"])).map((command) => command.paths![0]!.join(" ")).sort(),
    ).toEqual(["adapters compliance-check", "adapters doctor", "adapters list"]);
    expect(await reachableCommands(["--help"])).toEqual([]);
    expect(await reachableCommands(["verfy"])).toEqual([]);
    expect((await reachableCommands(["completion", "bash"])).length).toBe(COMMANDS.length);
    expect(listedCommands().map((command) => command.paths![0]!.join(" "))).toEqual(
      COMMANDS.map((entry) => entry.path.join(" ")),
    );
  });
});

describe("evalgate --help without the parser", () => {
  it("is exactly the help clipanion prints for the listed commands", async () => {
    const { Builtins, Cli } = await import("clipanion");
    const cli = new Cli({
      binaryLabel: "evalgate",
      binaryName: "evalgate",
      binaryVersion: "9.9.9",
      enableColors: false,
    });
    cli.register(Builtins.HelpCommand);
    for (const command of listedCommands()) cli.register(command);
    expect(topLevelHelp("evalgate", "9.9.9")).toBe(cli.usage(null, { colored: false }));
  });

  it("answers only a bare --help, -h, --version, -v or an empty command line", () => {
    expect(answerWithoutParser([], "evalgate", "1.2.3")).toBe(topLevelHelp("evalgate", "1.2.3"));
    expect(answerWithoutParser(["-h"], "evalgate", "1.2.3")).toBe(topLevelHelp("evalgate", "1.2.3"));
    expect(answerWithoutParser(["--version"], "evalgate", "1.2.3")).toBe("1.2.3\n");
    expect(answerWithoutParser(["-v"], "evalgate", "1.2.3")).toBe("1.2.3\n");
    for (const argv of [["run", "--help"], ["--version", "--debug"], ["--help", "run"], ["verify"]])
      expect(answerWithoutParser(argv, "evalgate", "1.2.3")).toBeNull();
  });
});
