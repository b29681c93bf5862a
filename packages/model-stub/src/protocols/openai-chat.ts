// OpenAI Chat Completions (`POST /v1/chat/completions`), as Pi speaks it.
import type { Answer, ParsedRequest, Protocol, Rendered } from "./types.ts";
import { asArray, eventStream, isRecord, json, schemaProperties, schemaRequired, sse, textOf } from "./types.ts";

function parse(body: Record<string, unknown>): ParsedRequest {
  const messages = asArray(body.messages).filter(isRecord);
  const user = messages.filter((message) => message.role === "user").map((message) => textOf(message.content));
  const system = messages
    .filter((message) => message.role === "system" || message.role === "developer")
    .map((message) => textOf(message.content));
  const format = isRecord(body.response_format) ? body.response_format.type : undefined;
  return {
    model: typeof body.model === "string" ? body.model : "",
    stream: body.stream === true,
    tools: asArray(body.tools)
      .filter(isRecord)
      .map((tool) => (isRecord(tool.function) ? tool.function : tool))
      .filter((fn) => typeof fn.name === "string")
      .map((fn) => ({
        name: fn.name as string,
        kind: "function" as const,
        parameters: schemaProperties(fn.parameters),
        required: schemaRequired(fn.parameters),
      })),
    modelTurns: messages.filter((message) => message.role === "assistant").length,
    userText: user.join("\n"),
    contextText: [...system, ...user].join("\n"),
    wantsJson: format === "json_schema" || format === "json_object",
  };
}

function render(answer: Answer, request: ParsedRequest): Rendered {
  const id = `chatcmpl-stub-${answer.calls[0]?.id ?? "text"}`;
  const finish = answer.calls.length > 0 ? "tool_calls" : "stop";
  const usage = {
    prompt_tokens: answer.usage.input_tokens,
    completion_tokens: answer.usage.output_tokens,
    total_tokens: answer.usage.input_tokens + answer.usage.output_tokens,
  };
  const toolCalls = answer.calls.map((call, index) => ({
    index,
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const base = { id, created: 0, model: request.model };
  if (!request.stream) {
    const message = {
      role: "assistant",
      content: answer.text,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls.map(({ index: _index, ...rest }) => rest) } : {}),
    };
    return json(200, {
      ...base,
      object: "chat.completion",
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
  }
  const chunk = (delta: Record<string, unknown>, finishReason: string | null): string =>
    sse({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finishReason }] });
  const chunks = [chunk({ role: "assistant", content: "" }, null)];
  if (answer.text !== null) chunks.push(chunk({ content: answer.text }, null));
  for (const call of toolCalls) chunks.push(chunk({ tool_calls: [call] }, null));
  chunks.push(chunk({}, finish));
  chunks.push(sse({ ...base, object: "chat.completion.chunk", choices: [], usage }));
  chunks.push("data: [DONE]\n\n");
  return eventStream(chunks);
}

export const openaiChat: Protocol = {
  name: "openai-chat",
  parse,
  render,
  renderError: (status, message) =>
    json(status, { error: { type: "invalid_request_error", code: null, message, param: null } }),
};
