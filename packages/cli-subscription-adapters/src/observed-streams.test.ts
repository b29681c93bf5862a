import { describe, expect, it } from "vitest";
import type { ProcessFacts } from "./adapter-contract.ts";
import { ADAPTERS, getAdapter } from "./adapter-registry.ts";
import { readStream } from "./fake-cli.test-helpers.ts";
import { judgeSession } from "./trial.ts";

const clean: ProcessFacts = {
  exitCode: 0,
  timedOut: false,
  stdoutCapped: false,
  aborted: false,
  stderr: "",
  spawnError: null,
  authStatus: null,
};

function judge(adapter: keyof typeof ADAPTERS, stdout: string, proc: Partial<ProcessFacts> = {}) {
  return judgeSession(ADAPTERS[adapter], stdout, { ...clean, ...proc }, { adapter });
}

describe("Claude Code adapter on real observed streams", () => {
  it("no login: subtype success with is_error true is an auth failure, never a success", () => {
    const judged = judge("claude-code", readStream("claude-noauth.stdout.jsonl"), { exitCode: 1 });
    expect(judged.classification.trial_class).toBe("cli_error");
    expect(judged.classification.cli_error_kind).toBe("auth_failure");
    expect(judged.classification.reason).toMatch(/authentication_failed/);
    expect(judged.safety.state).toBe("unknown");
    expect(judged.transcript.drift.unparseable_lines).toBe(0);
  });

  it("the same stream with exit code 0 is still an auth failure: the stream decides", () => {
    expect(
      judge("claude-code", readStream("claude-noauth.stdout.jsonl"), { exitCode: 0 }).classification.cli_error_kind,
    ).toBe("auth_failure");
  });

  it("api_retry without a result, killed at the deadline: network unreachable", () => {
    const judged = judge("claude-code", readStream("claude-fakekey-api-retry.stdout.jsonl"), {
      exitCode: null,
      timedOut: true,
    });
    expect(judged.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "network_unreachable" });
  });

  it("a clean session is parse_success with cost, a transcript with tool calls, and safety not_detected", () => {
    const judged = judge("claude-code", readStream("claude-success.stdout.jsonl"));
    expect(judged.classification.trial_class).toBe("parse_success");
    expect(judged.facts.costUsd).toBe(0.0213);
    expect(judged.safety).toEqual({ state: "not_detected", signal: null, source: null });
    expect(judged.transcript.tool_calls.map((call) => call.name)).toContain("Read");
  });

  it("an unknown event type in an otherwise clean session is format_drift, never a crash", () => {
    const lines = readStream("claude-success.stdout.jsonl").trimEnd().split("\n");
    lines.splice(2, 0, JSON.stringify({ type: "hologram", payload: 1 }));
    const judged = judge("claude-code", lines.join("\n"));
    expect(judged.classification.trial_class).toBe("format_drift");
    expect(judged.classification.reason).toMatch(/hologram/);
    expect(judged.facts.unknownEventTypes).toEqual(["hologram"]);
  });

  it("a result lacking is_error is drift; a non-JSON line is a parse failure", () => {
    const lines = readStream("claude-success.stdout.jsonl").trimEnd().split("\n");
    const result = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    delete result.is_error;
    const drifted = judge("claude-code", [...lines.slice(0, -1), JSON.stringify(result)].join("\n"));
    expect(drifted.classification.trial_class).toBe("format_drift");
    expect(drifted.classification.reason).toMatch(/result.is_error/);
    const withGarbage = judge("claude-code", ["Warning: something odd", ...lines].join("\n"));
    expect(withGarbage.classification.trial_class).toBe("parse_failure");
  });

  it("structured refusal: stop_reason refusal and model_refusal_no_fallback are model_refusal, safety detected", () => {
    const refusal = [
      JSON.stringify({ type: "system", subtype: "init", session_id: "s" }),
      JSON.stringify({
        type: "assistant",
        message: {
          role: "assistant",
          content: [{ type: "text", text: "..." }],
          stop_reason: "refusal",
          stop_details: { category: "cyber" },
        },
      }),
      JSON.stringify({
        type: "result",
        subtype: "success",
        is_error: false,
        result: "...",
        stop_reason: "refusal",
        total_cost_usd: 0.01,
      }),
    ].join("\n");
    const judged = judge("claude-code", refusal);
    expect(judged.classification.trial_class).toBe("model_refusal");
    expect(judged.safety).toMatchObject({ state: "detected", source: "structured" });
    expect(judged.safety.signal).toMatch(/cyber/);
    const system = judge("claude-code", JSON.stringify({ type: "system", subtype: "model_refusal_no_fallback" }));
    expect(system.classification.trial_class).toBe("model_refusal");
  });

  it("a refusal phrase with no structured signal is detected by phrase; a fallback is a safety signal only", () => {
    const phrase = judge(
      "claude-code",
      JSON.stringify({
        type: "result",
        subtype: "success",
        is_error: false,
        result: "I can't help with that request.",
      }),
    );
    expect(phrase.safety).toMatchObject({ state: "detected", source: "phrase" });
    const fallback = judge(
      "claude-code",
      [
        JSON.stringify({ type: "system", subtype: "model_refusal_fallback" }),
        JSON.stringify({ type: "result", subtype: "success", is_error: false, result: "done" }),
      ].join("\n"),
    );
    expect(fallback.classification.trial_class).toBe("parse_success");
    expect(fallback.safety).toMatchObject({
      state: "detected",
      source: "structured",
      signal: "system/model_refusal_fallback",
    });
  });

  it("error results map to kinds: max turns, HTTP 401, 429 retries", () => {
    expect(
      judge(
        "claude-code",
        JSON.stringify({ type: "result", subtype: "error_max_turns", is_error: true, errors: ["too many"] }),
      ).classification.cli_error_kind,
    ).toBe("turn_limit");
    expect(
      judge(
        "claude-code",
        JSON.stringify({ type: "result", subtype: "success", is_error: true, api_error_status: 401, result: "x" }),
      ).classification.cli_error_kind,
    ).toBe("auth_failure");
    const rate = judge(
      "claude-code",
      JSON.stringify({
        type: "system",
        subtype: "api_retry",
        attempt: 1,
        max_retries: 3,
        error: "rate_limit",
        error_status: 429,
      }),
      { timedOut: true, exitCode: null },
    );
    expect(rate.classification.cli_error_kind).toBe("timeout");
    expect(
      judge("claude-code", JSON.stringify({ type: "auth_status", error: "token expired" })).classification
        .cli_error_kind,
    ).toBe("auth_failure");
    expect(judge("claude-code", JSON.stringify({ type: "assistant" })).facts.missingFields).toEqual([
      "assistant.message",
    ]);
  });
});

describe("Codex adapter on real observed streams", () => {
  it("no network: transient errors then the deadline is network_unreachable, not a success", () => {
    const judged = judge("codex", readStream("codex-nonetwork.stdout.jsonl"), { exitCode: null, timedOut: true });
    expect(judged.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "network_unreachable" });
    expect(judged.facts.errors.every((error) => !error.fatal)).toBe(true);
  });

  it("with the login check saying logged out, the same stream is an auth failure", () => {
    const judged = judge("codex", readStream("codex-nonetwork.stdout.jsonl"), {
      exitCode: null,
      authStatus: "logged_out",
    });
    expect(judged.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "auth_failure" });
  });

  it("turn.completed is parse_success; turn.failed is a cli_error with its message; unknown item types are drift", () => {
    expect(judge("codex", readStream("codex-success.stdout.jsonl")).classification.trial_class).toBe("parse_success");
    const failed = judge(
      "codex",
      [
        JSON.stringify({ type: "turn.started" }),
        JSON.stringify({ type: "turn.failed", error: { message: "401 Unauthorized" } }),
      ].join("\n"),
      { exitCode: 1 },
    );
    expect(failed.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "auth_failure" });
    const drift = judge(
      "codex",
      [
        JSON.stringify({ type: "item.completed", item: { id: "i", type: "telepathy" } }),
        JSON.stringify({ type: "turn.completed", usage: {} }),
      ].join("\n"),
    );
    expect(drift.classification.trial_class).toBe("format_drift");
    expect(drift.facts.unknownEventTypes).toEqual(["item.completed/telepathy"]);
    const missing = judge("codex", [JSON.stringify({ type: "turn.failed" })].join("\n"));
    expect(missing.facts.missingFields).toContain("turn.failed.error.message");
  });

  it("login status: logged out unless an API key is in the environment", () => {
    const status = ADAPTERS.codex.authStatus!;
    const out = { stdout: "", stderr: readStream("codex-login-status-loggedout.stderr.txt"), exitCode: 1 };
    expect(status.interpret(out, {})).toBe("logged_out");
    expect(status.interpret(out, { OPENAI_API_KEY: "sk-x" })).toBe("unknown");
    expect(status.interpret({ stdout: "Logged in using ChatGPT", stderr: "", exitCode: 0 }, {})).toBe("logged_in");
    expect(status.interpret({ stdout: "???", stderr: "", exitCode: 2 }, {})).toBe("unknown");
  });
});

describe("Gemini adapter on real observed streams", () => {
  it("no auth: empty stdout, exit 41, message on stderr is an auth failure", () => {
    const judged = judge("gemini", "", { exitCode: 41, stderr: readStream("gemini-noauth.stderr.txt") });
    expect(judged.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "auth_failure" });
    expect(judged.safety.state).toBe("unknown");
  });

  it("empty stdout with exit 0 is not a success; exit 55 is an untrusted workspace", () => {
    expect(judge("gemini", "", { exitCode: 0 }).classification).toMatchObject({
      trial_class: "cli_error",
      cli_error_kind: "no_result",
    });
    expect(judge("gemini", "", { exitCode: 55 }).classification.cli_error_kind).toBe("untrusted_workspace");
  });

  it("init and user message then killed at the deadline: timeout", () => {
    const judged = judge("gemini", readStream("gemini-fakekey-nonetwork.stdout.jsonl"), {
      exitCode: 0,
      timedOut: true,
    });
    expect(judged.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "timeout" });
  });

  it("a started stream that ends with exit 0 and no result is a parse failure", () => {
    expect(
      judge("gemini", readStream("gemini-fakekey-nonetwork.stdout.jsonl"), { exitCode: 0 }).classification.trial_class,
    ).toBe("parse_failure");
  });

  it("a clean session is parse_success; delta messages are joined for the phrase table", () => {
    const judged = judge("gemini", readStream("gemini-success.stdout.jsonl"));
    expect(judged.classification.trial_class).toBe("parse_success");
    expect(judged.facts.finalText).toBe("hello world\nline two");
    expect(judged.transcript.tool_calls.length).toBe(1);
  });

  it("a safety-blocked error result is model_refusal (structured); a fatal error event is a cli_error", () => {
    const blocked = judge(
      "gemini",
      JSON.stringify({
        type: "result",
        status: "error",
        error: { type: "SAFETY", message: "Response was blocked due to safety" },
      }),
    );
    expect(blocked.classification.trial_class).toBe("model_refusal");
    expect(blocked.safety.source).toBe("structured");
    const fatal = judge(
      "gemini",
      JSON.stringify({ type: "error", severity: "error", message: "quota exceeded (429)" }),
      { exitCode: 1 },
    );
    expect(fatal.classification).toMatchObject({ trial_class: "cli_error", cli_error_kind: "rate_limited" });
    const warning = judge(
      "gemini",
      JSON.stringify({ type: "error", severity: "warning", message: "Response was blocked by safety settings" }),
      { exitCode: 0 },
    );
    expect(warning.safety).toMatchObject({ state: "detected", source: "structured" });
  });

  it("missing required fields are drift", () => {
    const judged = judge(
      "gemini",
      [JSON.stringify({ type: "tool_use" }), JSON.stringify({ type: "result", status: "success" })].join("\n"),
    );
    expect(judged.classification.trial_class).toBe("format_drift");
    expect(judged.facts.missingFields).toEqual(["tool_use.tool_name", "tool_use.tool_id"]);
  });
});

describe("adapter contract", () => {
  it("argv: long flags only, no shell/eval/bypass flags, prompt survives redaction or goes on stdin", async () => {
    const { redactArgv } = await import("./redaction.ts");
    for (const adapter of Object.values(ADAPTERS)) {
      const built = adapter.buildArgv("Fix it --password=hunter2", { workspaceDir: "/tmp/ws", insideSandbox: true });
      const flags = built.args.filter((arg) => arg.startsWith("-") && !arg.startsWith("Fix"));
      for (const flag of flags) expect(flag).toMatch(/^--[a-z]/);
      expect(built.args.join(" ")).not.toMatch(/dangerously|yolo|bypass|--shell|--eval|--bash|--code-act/i);
      if (adapter.capabilities.prompt_via === "flag")
        expect(redactArgv(built.args)).toContain("Fix it --password=hunter2");
      else expect(built.stdin).toBe("Fix it --password=hunter2");
    }
  });

  it("versions are read from each CLI's own format", () => {
    expect(ADAPTERS["claude-code"].parseVersion("2.1.330 (Claude Code)\n")).toBe("2.1.330");
    expect(ADAPTERS.codex.parseVersion("codex-cli 0.169.0\n")).toBe("0.169.0");
    expect(ADAPTERS.gemini.parseVersion("0.61.0\n")).toBe("0.61.0");
    expect(ADAPTERS.gemini.parseVersion("no version here")).toBeNull();
  });

  it("claude auth status is parsed from its JSON", () => {
    const status = ADAPTERS["claude-code"].authStatus!;
    expect(
      status.interpret({ stdout: readStream("claude-auth-status-loggedout.json"), stderr: "", exitCode: 1 }, {}),
    ).toBe("logged_out");
    expect(status.interpret({ stdout: '{"loggedIn": true}', stderr: "", exitCode: 0 }, {})).toBe("logged_in");
    expect(status.interpret({ stdout: "not json", stderr: "", exitCode: 1 }, {})).toBe("unknown");
  });

  it("an unknown adapter name is one clear error", () => {
    expect(() => getAdapter("copilot")).toThrow(
      /no adapter named "copilot"; choose one of: claude-code, codex, gemini/,
    );
  });

  it("a spawn failure, an abort and a stdout cap are cli_errors whatever the stream says", () => {
    const success = readStream("claude-success.stdout.jsonl");
    expect(judge("claude-code", "", { spawnError: "ENOENT" }).classification.cli_error_kind).toBe("spawn_failed");
    expect(judge("claude-code", success, { stdoutCapped: true }).classification.cli_error_kind).toBe("stdout_cap");
    expect(
      judge("codex", JSON.stringify({ type: "turn.started" }), { aborted: true, exitCode: null }).classification
        .cli_error_kind,
    ).toBe("cancelled");
    expect(judge("codex", "garbage\n", { exitCode: 0 }).classification.trial_class).toBe("parse_failure");
    expect(judge("codex", JSON.stringify({ type: "mystery" }), { exitCode: 0 }).classification.trial_class).toBe(
      "format_drift",
    );
    expect(judge("codex", "", { exitCode: 3, stderr: "boom\n" }).classification).toMatchObject({
      cli_error_kind: "no_result",
    });
  });
});
