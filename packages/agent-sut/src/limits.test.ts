import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAdapter } from "@eval/cli-subscription-adapters";
import { refuseUneditableCases, uneditableInputs } from "./limits.ts";

let benchRoot: string;
const benchCase = (case_id: string) =>
  ({ case_id, task_class: "t", prompt: "p", cassette_canary_pin: "0".repeat(32) }) as never;

beforeAll(() => {
  benchRoot = mkdtempSync(join(tmpdir(), "evalgate-limits-"));
  const input = (id: string, files: string[]) => {
    for (const file of files) {
      mkdirSync(join(benchRoot, "t", "cases", id, "input", file, ".."), { recursive: true });
      writeFileSync(join(benchRoot, "t", "cases", id, "input", file), "x");
    }
  };
  input("npm", ["package.json", "src/a.js"]);
  input("docker", ["svc/Dockerfile.prod", "main.go"]);
  input("plain", ["src/a.js", "README.md"]);
});
afterAll(() => rmSync(benchRoot, { recursive: true, force: true }));

describe("adapters' uneditable files", () => {
  it("finds Gemini CLI's build files in case inputs, nested and by prefix, and nothing elsewhere", () => {
    const found = uneditableInputs(getAdapter("gemini"), benchRoot, [
      benchCase("npm"),
      benchCase("docker"),
      benchCase("plain"),
    ]);
    expect(Object.fromEntries(found)).toEqual({ npm: ["package.json"], docker: ["svc/Dockerfile.prod"] });
  });

  it("refuses a Gemini run of such cases naming them, and lets other adapters and plain cases run", () => {
    expect(() =>
      refuseUneditableCases(getAdapter("gemini"), benchRoot, [benchCase("plain"), benchCase("npm")]),
    ).toThrow(
      /cli:gemini cannot run 1 selected case\(s\) whose task is to edit build files: npm \(package\.json\)\. Gemini CLI 0\.61\.0 denies/,
    );
    expect(() => refuseUneditableCases(getAdapter("gemini"), benchRoot, [benchCase("plain")])).not.toThrow();
    for (const name of ["claude-code", "codex", "pi"])
      expect(() => refuseUneditableCases(getAdapter(name), benchRoot, [benchCase("npm")])).not.toThrow();
  });
});

describe("adapters' uneditable files, keyed on the task class's declared edits", () => {
  const gemini = getAdapter("gemini");

  it("lets Gemini take a case whose inputs hold a build file its solution does not edit (was: refused on the guess)", () => {
    expect(() => refuseUneditableCases(gemini, benchRoot, [benchCase("npm")])).toThrow(/npm \(package\.json\)/);
    expect(() => refuseUneditableCases(gemini, benchRoot, [benchCase("npm")], { edits: ["src/**"] })).not.toThrow();
    expect(
      Object.fromEntries(
        uneditableInputs(gemini, benchRoot, [benchCase("npm"), benchCase("docker")], {
          edits: ["src/**/*.js", "*.go"],
        }),
      ),
    ).toEqual({});
  });

  it("refuses the cases whose declared edits match a build file, by glob, nested, or as a file the solution creates", () => {
    // A declared path without a wildcard is a file every case's solution edits, whether its input has it or not.
    expect(
      Object.fromEntries(
        uneditableInputs(gemini, benchRoot, [benchCase("npm"), benchCase("docker"), benchCase("plain")], {
          edits: ["**/Dockerfile*", "src/*", "Makefile"],
        }),
      ),
    ).toEqual({
      npm: ["Makefile"],
      docker: ["Makefile", "svc/Dockerfile.prod"],
      plain: ["Makefile"],
    });
    expect(() => refuseUneditableCases(gemini, benchRoot, [benchCase("docker")], { edits: ["svc/*"] })).toThrow(
      /cli:gemini cannot run 1 selected case\(s\) whose task is to edit build files: docker \(svc\/Dockerfile\.prod\)\. Gemini CLI 0\.61\.0 denies .*the agent's$/,
    );
  });

  it("says the refusal was a guess when the task class declares no edits", () => {
    expect(() => refuseUneditableCases(gemini, benchRoot, [benchCase("npm")], { adapters: {} })).toThrow(
      /\(Judged by the cases' input files: declare the task class's agent\.edits to say which files a solution edits\.\)$/,
    );
    expect(() =>
      refuseUneditableCases(getAdapter("codex"), benchRoot, [benchCase("npm")], { edits: ["package.json"] }),
    ).not.toThrow();
  });
});
