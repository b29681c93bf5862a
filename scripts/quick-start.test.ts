// The README's Quick start is a contract: exactly two commands in one `sh` block, the second being what
// CI runs (.ci/run reads it from the README, so the two cannot drift apart).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");

function quickStartCommands(readme: string): string[] {
  const section = readme.split(/^## Quick start\s*$/m)[1] ?? "";
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block.split("\n").filter((line) => line.trim() !== "");
}

describe("README quick start", () => {
  const commands = quickStartCommands(readFileSync(join(repo, "README.md"), "utf8"));

  it("has exactly two commands: set up and run, then test", () => {
    expect(commands).toHaveLength(2);
    expect(commands[0]).toMatch(/^\.\/scripts\/setup\.sh && \.\/scripts\/evalgate /);
    expect(commands[1]).toBe("./scripts/test.sh");
  });

  it("is what .ci/run executes", () => {
    // The same extraction .ci/run performs, run by the shell tools it uses.
    const extracted = execFileSync(
      "awk",
      ["/^## Quick start/{q=1} q&&/^```sh/{f=1;next} f&&/^```/{exit} f{n++; if(n==2) print}", join(repo, "README.md")],
      { encoding: "utf8" },
    ).trim();
    expect(extracted).toBe(commands[1]);
    expect(readFileSync(join(repo, ".ci", "run"), "utf8")).toContain(
      "awk '/^## Quick start/{q=1} q&&/^```sh/{f=1;next} f&&/^```/{exit} f{n++; if(n==2) print}' README.md",
    );
  });

  it("names scripts that exist and are executable", () => {
    for (const script of ["scripts/setup.sh", "scripts/test.sh", "scripts/evalgate", ".ci/run"]) {
      expect(() => execFileSync("test", ["-x", join(repo, script)])).not.toThrow();
    }
  });
});
