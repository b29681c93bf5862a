import { describe, expect, it } from "vitest";
import { getAdapter } from "./adapter-registry.ts";
import { agentArgsFor } from "./agent-args.ts";

describe("a live run's extra CLI flags", () => {
  const declared = {
    adapters: { pi: { model: "class-model", args: ["--provider", "stub"] }, codex: { args: ["--config", "x=1"] } },
  };

  it("come from the task class for its adapter: the model as --model, then its args", () => {
    expect(agentArgsFor(getAdapter("pi"), declared, {})).toEqual(["--model", "class-model", "--provider", "stub"]);
    expect(agentArgsFor(getAdapter("codex"), declared, {})).toEqual(["--config", "x=1"]);
    expect(agentArgsFor(getAdapter("claude-code"), declared, {})).toEqual([]);
    expect(agentArgsFor(getAdapter("pi"), null, {})).toEqual([]);
  });

  it("--agent-model replaces the class's model; --agent-arg flags come after the class's", () => {
    expect(agentArgsFor(getAdapter("pi"), declared, { model: "flag-model", args: ["--provider", "other"] })).toEqual([
      "--model",
      "flag-model",
      "--provider",
      "stub",
      "--provider",
      "other",
    ]);
    expect(agentArgsFor(getAdapter("claude-code"), null, { model: "opus" })).toEqual(["--model", "opus"]);
  });
});
