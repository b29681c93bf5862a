// The wire facts each protocol module encodes, on the shapes the CLIs and providers actually send.
import { describe, expect, it } from "vitest";
import { PRICE_TABLE, priceOf } from "./price-table.ts";
import { mergeUsage, modelOf, protocolError, protocolOfPath, upstreamKeyHeader, ZERO_USAGE } from "./protocols.ts";
import { shapeOf } from "./replay.ts";
import { UsageReader } from "./usage-reader.ts";

describe("prices", () => {
  it("prices an exact id or a dated snapshot of it, never a neighbour", () => {
    const sonnet = PRICE_TABLE.models["claude-sonnet-4-5"];
    expect(priceOf(PRICE_TABLE, "claude-sonnet-4-5-20250929")).toBe(sonnet);
    expect(priceOf(PRICE_TABLE, "claude-sonnet-4-5@20250929")).toBe(sonnet);
    expect(priceOf(PRICE_TABLE, "gpt-5-2025-08-07")).toBe(PRICE_TABLE.models["gpt-5"]);
    expect(priceOf(PRICE_TABLE, "gemini-2.5-flash-latest")).toBe(PRICE_TABLE.models["gemini-2.5-flash"]);
    expect(priceOf(PRICE_TABLE, "gpt-5.5")).toBeNull();
    expect(priceOf(PRICE_TABLE, "gpt-5-pro-2025-10-06")).toBeNull();
    expect(priceOf(PRICE_TABLE, null)).toBeNull();
  });
});

describe("protocols", () => {
  it("recognises each model call by its path, and nothing else", () => {
    expect(protocolOfPath("/v1beta/models/gemini-2.5-pro:generateContent")).toBe("gemini");
    expect(protocolOfPath("/v1beta/models/gemini-2.5-pro:countTokens")).toBeNull();
    expect(protocolOfPath("/v1/messages/count_tokens?beta=true")).toBeNull();
    expect(modelOf("/v1beta/models/gemini%2D2.5:streamGenerateContent?alt=sse", {})).toBe("gemini-2.5");
    expect(modelOf("/v1/messages", [])).toBeNull();
  });

  it("sends the real key in each protocol's own header", () => {
    expect(upstreamKeyHeader("anthropic-messages", "k")).toEqual({ "x-api-key": "k" });
    expect(upstreamKeyHeader("gemini", "k")).toEqual({ "x-goog-api-key": "k" });
    expect(upstreamKeyHeader("openai-chat", "k")).toEqual({ authorization: "Bearer k" });
    expect(upstreamKeyHeader(null, "k")).toEqual({ authorization: "Bearer k" });
  });

  it("answers a refusal in each protocol's error shape, always a 400", () => {
    expect(JSON.parse(protocolError("gemini", "no").body)).toEqual({
      error: { code: 400, message: "no", status: "INVALID_ARGUMENT" },
    });
    expect(JSON.parse(protocolError("anthropic-messages", "no").body)).toMatchObject({
      type: "error",
      error: { message: "no" },
    });
    expect(protocolError(null, "no")).toMatchObject({ status: 400, body: expect.stringContaining("evalgate_refused") });
  });

  it("reads usage where each protocol puts it; junk and usage-less events change nothing", () => {
    const incomplete = mergeUsage(
      "openai-responses",
      { type: "response.incomplete", response: { usage: { input_tokens: 9, output_tokens: 2 } } },
      ZERO_USAGE,
    );
    expect(incomplete).toMatchObject({ input_tokens: 9, cached_input_tokens: 0, output_tokens: 2 });
    expect(mergeUsage("openai-responses", { type: "response.output_text.delta", delta: "x" }, incomplete)).toBe(
      incomplete,
    );
    expect(mergeUsage("openai-chat", { choices: [] }, incomplete)).toBe(incomplete);
    expect(mergeUsage("gemini", { candidates: [] }, incomplete)).toBe(incomplete);
    expect(mergeUsage("anthropic-messages", { type: "ping" }, incomplete)).toBe(incomplete);
    expect(mergeUsage("anthropic-messages", "not an object", incomplete)).toBe(incomplete);
    // Negative or non-numeric figures read as 0, never subtract.
    expect(mergeUsage("openai-chat", { usage: { prompt_tokens: -5, completion_tokens: "7" } }, ZERO_USAGE)).toEqual(
      ZERO_USAGE,
    );
    expect(
      mergeUsage(
        "gemini",
        { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3, thoughtsTokenCount: 5 } },
        ZERO_USAGE,
      ),
    ).toMatchObject({ input_tokens: 10, output_tokens: 8 });
  });

  it("Anthropic: a later message_delta updating only the output keeps the prompt side of message_start", () => {
    const start = mergeUsage(
      "anthropic-messages",
      {
        type: "message_start",
        message: {
          usage: { input_tokens: 10, cache_read_input_tokens: 4, cache_creation_input_tokens: 2, output_tokens: 1 },
        },
      },
      ZERO_USAGE,
    );
    expect(start).toEqual({ input_tokens: 16, cached_input_tokens: 4, cache_write_tokens: 2, output_tokens: 1 });
    expect(mergeUsage("anthropic-messages", { type: "message_delta", usage: { output_tokens: 30 } }, start)).toEqual({
      ...start,
      output_tokens: 30,
    });
  });
});

describe("the usage reader", () => {
  it("reads a stream split anywhere, with CRLF lines, event lines, comments and [DONE]", () => {
    const reader = new UsageReader("openai-chat", "text/event-stream; charset=utf-8");
    const text =
      'event: chunk\r\n: keep-alive\r\ndata: {"choices":[]}\r\n\r\ndata: {"usage":{"prompt_tokens":12,"completion_tokens":3}}\r\n\r\ndata: [DONE]\r\n\r\n';
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 7) reader.push(bytes.subarray(at, at + 7));
    expect(reader.end()).toMatchObject({ input_tokens: 12, output_tokens: 3 });
  });

  it("reads a last event that has no newline, and a body that is not JSON as no usage", () => {
    const streamed = new UsageReader("openai-chat", "text/event-stream");
    streamed.push(Buffer.from('data: {"usage":{"prompt_tokens":1,"completion_tokens":1}}'));
    expect(streamed.end()).toMatchObject({ input_tokens: 1, output_tokens: 1 });
    const junk = new UsageReader("anthropic-messages", undefined);
    junk.push(Buffer.from("<html>bad gateway</html>"));
    expect(junk.end()).toEqual(ZERO_USAGE);
  });
});

describe("the shape a replay compares", () => {
  it("Gemini: contents and functionDeclarations; the first user turn's parts", () => {
    const shape = shapeOf("gemini", {
      contents: [
        { role: "user", parts: [{ text: "Fix" }, { inlineData: {} }, { text: "it" }] },
        { role: "model", parts: [] },
      ],
      tools: [{ functionDeclarations: [{ name: "write_file" }, { name: "read_file" }, "junk"] }],
    });
    expect(shape).toEqual([
      ["model", ""],
      ["tools", ",read_file,write_file"],
      ["contents.length", "2"],
      ["contents[first user].text", "Fix it"],
      ["contents[every user].text", "Fix it"],
    ]);
  });

  it("OpenAI: a string input is one user turn; chat tools are named by their function; built-in tools by type", () => {
    expect(
      shapeOf("openai-responses", {
        model: "gpt-5",
        input: "Fix it",
        tools: [{ type: "web_search" }, { type: "function", name: "exec_command" }],
      }),
    ).toEqual([
      ["model", "gpt-5"],
      ["tools", "exec_command,web_search"],
      ["input.length", "1"],
      ["input[first user].text", "Fix it"],
      ["input[every user].text", "Fix it"],
    ]);
    expect(
      shapeOf("openai-chat", {
        model: "m",
        messages: [
          { role: "system", content: "sys" },
          { role: "user", content: 7 },
        ],
        tools: [{ type: "function", function: { name: "bash" } }, 3],
      }),
    ).toEqual([
      ["model", "m"],
      ["tools", "bash"],
      ["messages.length", "2"],
      ["messages[first user].text", ""],
      ["messages[every user].text", ""],
    ]);
  });

  it("compares nothing for a call that is not a model call, or a body that is not an object", () => {
    expect(shapeOf(null, { model: "x" })).toEqual([]);
    expect(shapeOf("openai-chat", "text")).toEqual([]);
    expect(shapeOf("openai-chat", { messages: "not a list" })).toContainEqual(["messages.length", "1"]);
  });
});
