import { describe, expect, it } from "vitest";
import type { RecordedExchange } from "./exchanges.ts";
import { ZERO_USAGE } from "./protocols.ts";
import { createReplayMatcher, normalizeText } from "./replay.ts";

const body = (prompt: string, extra: Record<string, unknown> = {}) => ({
  model: "claude-sonnet-4-5",
  tools: [{ name: "Write" }, { name: "Bash" }],
  messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
  metadata: { user_id: "user_0123456789abcdef0123" },
  ...extra,
});
const exchange = (index: number, prompt: string, answer: string): RecordedExchange => ({
  index,
  method: "POST",
  path: "/v1/messages?beta=true",
  protocol: "anthropic-messages",
  model: "claude-sonnet-4-5",
  request_body: body(prompt),
  status: 200,
  content_type: "text/event-stream",
  response_body: answer,
  usage: ZERO_USAGE,
  duration_ms: 1,
});
const ask = (index: number, requestBody: unknown) => ({
  index,
  method: "POST",
  path: "/v1/messages?beta=true",
  protocol: "anthropic-messages" as const,
  model: "claude-sonnet-4-5",
  request_body: requestBody,
});

describe("replay matching", () => {
  it("answers by order, tolerant to ids, dates and temporary paths", () => {
    const matcher = createReplayMatcher([
      exchange(0, "Fix /tmp/ws-abc/app.js on 2026-11-25 (run 4f9c2a1b-0000-4000-8000-000000000001)", "first"),
      exchange(1, "Fix it", "second"),
    ]);
    const first = matcher.answer(
      ask(0, {
        ...body("Fix /tmp/ws-xyz/app.js on 2026-11-26 (run 9d1e0b7c-1111-4111-8111-111111111111)"),
        metadata: { user_id: "other" },
      }),
    );
    expect(first).toMatchObject({ response_body: "first" });
    expect(matcher.answer(ask(1, body("Fix it")))).toMatchObject({ response_body: "second" });
  });

  it("names the first differing field: a changed prompt, other tools, a longer conversation, one request too many", () => {
    const recorded = [exchange(0, "Fix the advisory.", "first")];
    expect(createReplayMatcher(recorded).answer(ask(0, body("Fix the other advisory.")))).toMatchObject({
      divergence: {
        field: "messages[first user].text",
        recorded: "Fix the advisory.",
        received: "Fix the other advisory.",
      },
    });
    expect(
      createReplayMatcher(recorded).answer(ask(0, body("Fix the advisory.", { tools: [{ name: "Bash" }] }))),
    ).toMatchObject({ divergence: { field: "tools", recorded: "Bash,Write", received: "Bash" } });
    expect(
      createReplayMatcher(recorded).answer(ask(0, body("Fix the advisory.", { model: "claude-opus-4-5" }))),
    ).toMatchObject({ divergence: { field: "model" } });
    const longer = body("Fix the advisory.", {
      messages: [
        { role: "user", content: "Fix the advisory." },
        { role: "assistant", content: "ok" },
      ],
    });
    expect(createReplayMatcher(recorded).answer(ask(0, longer))).toMatchObject({
      divergence: { field: "messages.length", recorded: "1", received: "2" },
    });
    const matcher = createReplayMatcher(recorded);
    matcher.answer(ask(0, body("Fix the advisory.")));
    expect(matcher.answer(ask(1, body("Fix the advisory.")))).toMatchObject({
      divergence: { field: "request count", index: 1 },
    });
  });

  it("a changed prompt after a first user item that stays the same (Codex's environment context) diverges", () => {
    const responses = (prompt: string) => ({
      model: "gpt-5.5",
      tools: [{ type: "function", name: "exec_command" }],
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "You are Codex." }] },
        {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: "<environment_context><cwd>/workspace</cwd></environment_context>" }],
        },
        { type: "message", role: "user", content: [{ type: "input_text", text: prompt }] },
      ],
    });
    const recorded: RecordedExchange = {
      ...exchange(0, "", "first"),
      path: "/v1/responses",
      protocol: "openai-responses",
      model: "gpt-5.5",
      request_body: responses("Create fixed.txt."),
    };
    const request = (prompt: string) => ({
      index: 0,
      method: "POST",
      path: "/v1/responses",
      protocol: "openai-responses" as const,
      model: "gpt-5.5",
      request_body: responses(prompt),
    });
    expect(createReplayMatcher([recorded]).answer(request("Create fixed.txt."))).toMatchObject({
      response_body: "first",
    });
    expect(createReplayMatcher([recorded]).answer(request("Create broken.txt instead."))).toMatchObject({
      divergence: { field: "input[every user].text", received: expect.stringContaining("broken.txt") },
    });
  });

  it("normalises what varies run to run and nothing else", () => {
    expect(normalizeText("at 2026-11-26T08:42:50.123Z in /tmp/evalgate-x/ws id deadbeefdeadbeefdeadbeef")).toBe(
      "at <date> in <tmp> id <hex>",
    );
    expect(normalizeText("Fix lodash 4.17.20")).toBe("Fix lodash 4.17.20");
  });
});
