// The Pi adapter on streams the real `pi` 0.73.1 printed against the scripted model endpoint.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getAdapter } from "./adapter-registry.ts";
import { judgeSession } from "./trial.ts";

const fixture = (name: string): string => readFileSync(join(import.meta.dirname, "__fixtures__", "pi", name), "utf8");
const proc = {
  exitCode: 0,
  timedOut: false,
  stdoutCapped: false,
  aborted: false,
  stderr: "",
  spawnError: null,
  authStatus: null,
} as const;

describe("cli:pi", () => {
  it("reads a scripted session as a success with its tool calls under canonical names and the endpoint's token counts", () => {
    const judged = judgeSession(getAdapter("pi"), fixture("scripted-session.0.73.1.jsonl"), proc, {});
    expect(judged.classification).toMatchObject({ trial_class: "parse_success" });
    expect(judged.transcript.tool_calls.map((call) => call.name)).toEqual(["Read", "Write", "Bash", "Edit"]);
    // The scenario's turns reported 1000+1000+321+1000 input and 50+50+12+50 output tokens.
    expect(judged.transcript.usage).toMatchObject({ input_tokens: 3321, output_tokens: 162 });
  });

  it("reads an API refusal as a CLI error although Pi exits 0", () => {
    const judged = judgeSession(getAdapter("pi"), fixture("http-400.0.73.1.jsonl"), proc, {});
    expect(judged.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "api_error" });
    expect(judged.classification.reason).toMatch(/400 scripted refusal/);
  });

  it("asks for JSON events without a saved session, prompt last, and never a bypass flag", () => {
    const built = getAdapter("pi").buildArgv("Fix it", { workspaceDir: "/w", insideSandbox: true });
    expect(built.args).toEqual([
      "--print",
      "--mode",
      "json",
      "--no-session",
      "--no-extensions",
      "--no-skills",
      "Fix it",
    ]);
  });
});

describe("cli:codex inside evalgate's sandbox", () => {
  it("turns Codex's own nested sandbox off only inside evalgate's (which is then the boundary)", () => {
    const codex = getAdapter("codex");
    const inside = codex.buildArgv("p", { workspaceDir: "/w", insideSandbox: true }).args;
    const host = codex.buildArgv("p", { workspaceDir: "/w", insideSandbox: false }).args;
    expect(inside[inside.indexOf("--sandbox") + 1]).toBe("danger-full-access");
    expect(host[host.indexOf("--sandbox") + 1]).toBe("workspace-write");
    expect([...inside, ...host].some((arg) => /dangerously|bypass/.test(arg))).toBe(false);
  });
});
