// Anthropic Messages (`POST /v1/messages`), as Claude Code speaks it.
import type { Answer, ParsedRequest, Protocol, Rendered } from "./types.ts";
import { asArray, eventStream, isRecord, json, schemaProperties, schemaRequired, sse, textOf } from "./types.ts";

function parse(body: Record<string, unknown>): ParsedRequest {
  const messages = asArray(body.messages).filter(isRecord);
  const user = messages.filter((message) => message.role === "user").map((message) => textOf(message.content));
  // Claude Code also sends its environment (working directory included) as `system` messages.
  const context = messages.filter((message) => message.role !== "assistant").map((message) => textOf(message.content));
  return {
    model: typeof body.model === "string" ? body.model : "",
    stream: body.stream === true,
    tools: asArray(body.tools)
      .filter(isRecord)
      .filter((tool) => typeof tool.name === "string")
      .map((tool) => ({
        name: tool.name as string,
        kind: "function" as const,
        parameters: schemaProperties(tool.input_schema),
        required: schemaRequired(tool.input_schema),
      })),
    modelTurns: messages.filter((message) => message.role === "assistant").length,
    userText: user.join("\n"),
    contextText: `${textOf(body.system)}\n${context.join("\n")}`,
    wantsJson: false,
  };
}

function contentBlocks(answer: Answer): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (answer.text !== null) blocks.push({ type: "text", text: answer.text });
  for (const call of answer.calls)
    blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.arguments });
  return blocks;
}

function render(answer: Answer, request: ParsedRequest): Rendered {
  const id = `msg_stub_${answer.calls[0]?.id ?? "text"}`;
  const stopReason = answer.refusal === true ? "refusal" : answer.calls.length > 0 ? "tool_use" : "end_turn";
  const usage = {
    input_tokens: answer.usage.input_tokens,
    output_tokens: answer.usage.output_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const blocks = contentBlocks(answer);
  if (!request.stream) {
    return json(200, {
      id,
      type: "message",
      role: "assistant",
      model: request.model,
      content: blocks,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
  }
  const chunks = [
    sse(
      {
        type: "message_start",
        message: {
          id,
          type: "message",
          role: "assistant",
          model: request.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
      "message_start",
    ),
  ];
  blocks.forEach((block, index) => {
    const start = block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} };
    chunks.push(sse({ type: "content_block_start", index, content_block: start }, "content_block_start"));
    const delta =
      block.type === "text"
        ? { type: "text_delta", text: block.text }
        : { type: "input_json_delta", partial_json: JSON.stringify(block.input) };
    chunks.push(sse({ type: "content_block_delta", index, delta }, "content_block_delta"));
    chunks.push(sse({ type: "content_block_stop", index }, "content_block_stop"));
  });
  chunks.push(
    sse({ type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage }, "message_delta"),
  );
  chunks.push(sse({ type: "message_stop" }, "message_stop"));
  return eventStream(chunks);
}

export const anthropicMessages: Protocol = {
  name: "anthropic-messages",
  parse,
  render,
  renderError: (status, message) =>
    json(status, {
      type: "error",
      error: { type: status === 429 ? "rate_limit_error" : "invalid_request_error", message },
    }),
};
