// The completion scripts of the BUILT CLI, loaded into real shells: bash and zsh call the completion
// function as the shell would (COMP_WORDS/COMP_CWORD), fish answers `complete -C`. zsh and fish run where
// installed (apt-get install zsh fish); bash always.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invoke, runBuiltCli } from "./test-helpers.ts";

const has = (shell: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${shell}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

let dir: string;
const scripts: Record<string, string> = {};
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "evalgate-completion-"));
  for (const shell of ["bash", "zsh", "fish"]) {
    const result = await runBuiltCli(["completion", shell], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    scripts[shell] = join(dir, `evalgate.${shell}`);
    writeFileSync(scripts[shell], result.stdout);
  }
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the bash-style completion function offers for the words typed (the last one being completed). */
function bashStyle(shell: "bash" | "zsh", words: string[]): string[] {
  const quoted = words.map((word) => `'${word}'`).join(" ");
  // compinit (slow) only matters for registering, which the zsh test checks once; compgen comes with bashcompinit.
  const setup = shell === "zsh" ? "compdef() { :; }; " : "";
  const arrays = shell === "zsh" ? "setopt ksharrays; " : "";
  const out = execFileSync(
    shell,
    [
      "-c",
      `${setup}source ${scripts[shell]}; ${arrays}COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _evalgate_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir } },
  );
  return out.split("\n").filter((line) => line !== "");
}

describe("evalgate completion", () => {
  it("bash: commands, subcommands, options, and files after a command's words", { timeout: 60_000 }, () => {
    expect(execFileSync("bash", ["-c", `source ${scripts.bash}; complete -p evalgate`], { encoding: "utf8" })).toBe(
      "complete -o default -F _evalgate_complete evalgate\n",
    );
    expect(bashStyle("bash", ["evalgate", "ben"])).toEqual(["bench"]);
    expect(bashStyle("bash", ["evalgate", "r"])).toEqual(["report", "rescore", "run", "runs"]);
    expect(bashStyle("bash", ["evalgate", "bench", ""])).toEqual(["list", "show", "sign", "check"]);
    expect(bashStyle("bash", ["evalgate", "run", "--task-c"])).toEqual(["--task-class"]);
    expect(bashStyle("bash", ["evalgate", "run", "--task-class", "upper", "--tri"])).toEqual(["--trials"]);
    expect(bashStyle("bash", ["evalgate", "report", "-"])).toContain("-o");
    // A value or an argument: nothing from evalgate, so bash completes file names (-o default).
    expect(bashStyle("bash", ["evalgate", "merge", "bun"])).toEqual([]);
  });

  it.skipIf(!has("zsh"))("zsh: registered through bashcompinit and answers the same", { timeout: 180_000 }, () => {
    const registered = execFileSync(
      "zsh",
      ["-c", `autoload -U compinit && compinit -u -D; source ${scripts.zsh}; print -r -- $_comps[evalgate]`],
      { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir } },
    );
    expect(registered).toMatch(/_bash_complete.*_evalgate_complete/);
    // bashcompinit's compgen leaves matching the typed prefix to zsh's completer: it offers every candidate.
    expect(bashStyle("zsh", ["evalgate", "ben"])).toContain("bench");
    expect(bashStyle("zsh", ["evalgate", "cache", ""])).toEqual(["gc", "stats"]);
    expect(bashStyle("zsh", ["evalgate", "show", "--tr"])).toEqual(
      expect.arrayContaining(["--trial", "--trust-tiers", "--case", "--format"]),
    );
    expect(bashStyle("zsh", ["evalgate", "show", "--tr"])).not.toContain("--with-verdict");
  });

  it.skipIf(!has("fish"))("fish: complete -C answers commands, subcommands and options", { timeout: 60_000 }, () => {
    const complete = (line: string): string[] =>
      execFileSync("fish", ["--no-config", "-c", `source ${scripts.fish}; complete -C '${line}'`], {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
      })
        .split("\n")
        .filter((entry) => entry !== "")
        .map((entry) => entry.split("\t")[0]!);
    expect(complete("evalgate ben")).toEqual(["bench"]);
    expect(complete("evalgate bench ")).toEqual(expect.arrayContaining(["list", "show", "sign", "check"]));
    expect(complete("evalgate bench ")).not.toContain("run");
    expect(complete("evalgate run --task-c")).toEqual(["--task-class"]);
    expect(complete("evalgate verify --str")).toEqual(["--strict"]);
  });

  it("in-process prints the same scripts as the built CLI", { timeout: 60_000 }, async () => {
    const { readFileSync } = await import("node:fs");
    for (const shell of ["bash", "zsh", "fish"]) {
      const result = await invoke(["completion", shell]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(readFileSync(scripts[shell]!, "utf8"));
    }
  });

  it("an unknown shell is one line and exit 1", async () => {
    const result = await invoke(["completion", "tcsh"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'evalgate: no completion for shell "tcsh" (EVAL_USAGE); choose one of: bash, zsh, fish\n',
    );
  });
});
