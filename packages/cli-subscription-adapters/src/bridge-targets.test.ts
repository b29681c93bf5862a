// How each CLI is pointed at the bridge, read back from the files and variables written for it.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveUpstream } from "./agent-network.ts";
import { BRIDGE_TARGETS, modelFlag, PI_DEFAULT_MODEL } from "./bridge-targets.ts";

const homes: string[] = [];
const home = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "evalgate-bridge-target-"));
  homes.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of homes) rmSync(dir, { recursive: true, force: true });
});

describe("Pi behind the bridge", () => {
  it("gets one provider, the bridge, in its models.json (no key in the file) and the flags that choose it", () => {
    const dir = home();
    const config = BRIDGE_TARGETS.pi!.configure(dir, "http://127.0.0.1:47291", "evalgate-case-dummy", [
      "--model",
      "gpt-5",
      "--thinking",
      "low",
    ]);
    const models = JSON.parse(readFileSync(join(dir, ".pi", "agent", "models.json"), "utf8")) as unknown;
    expect(models).toEqual({
      providers: {
        evalgate: {
          baseUrl: "http://127.0.0.1:47291/v1",
          api: "openai-completions",
          apiKey: "EVALGATE_MODEL_KEY",
          models: [{ id: "gpt-5" }],
        },
      },
    });
    expect(readFileSync(join(dir, ".pi", "agent", "models.json"), "utf8")).not.toContain("evalgate-case-dummy");
    expect(config).toEqual({
      env: { EVALGATE_MODEL_KEY: "evalgate-case-dummy", PI_OFFLINE: "1" },
      args: ["--provider", "evalgate", "--model", "gpt-5"],
    });
  });

  it("without --model it runs the documented default", () => {
    const config = BRIDGE_TARGETS.pi!.configure(home(), "http://127.0.0.1:47291", "k", []);
    expect(config.args).toEqual(["--provider", "evalgate", "--model", PI_DEFAULT_MODEL]);
  });

  it("is no longer refused: its upstream is OpenAI-compatible, keyed by OPENAI_API_KEY", () => {
    expect(resolveUpstream("pi", { OPENAI_API_KEY: "sk-real" })).toEqual({
      baseUrl: "https://api.openai.com/v1",
      apiKey: "sk-real",
    });
    expect(() => resolveUpstream("pi", {})).toThrow(/none of OPENAI_API_KEY is set/);
    expect(resolveUpstream("pi", {}, "http://127.0.0.1:9/v1")).toEqual({
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: null,
    });
  });
});

describe("the model a CLI is run with", () => {
  it("is the last --model, in either spelling", () => {
    expect(modelFlag(["--model", "a", "--model=b"])).toBe("b");
    expect(modelFlag(["--model=b", "--model", "a"])).toBe("a");
    expect(modelFlag(["--model"])).toBeNull();
    expect(modelFlag(["--models", "x"])).toBeNull();
  });
});

describe("the other CLIs", () => {
  it("get their settings and no extra flags", () => {
    for (const adapter of ["claude-code", "codex", "gemini"] as const) {
      const config = BRIDGE_TARGETS[adapter]!.configure(home(), "http://127.0.0.1:47291", "evalgate-case-dummy", [
        "--model",
        "m",
      ]);
      expect(config.args).toBeUndefined();
      expect(Object.values(config.env)).toContain("evalgate-case-dummy");
    }
  });
});
