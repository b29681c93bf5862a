// OpenAI Responses (`POST /v1/responses`), as Codex speaks it: the whole conversation in `input`.
import type { Answer, ParsedRequest, Protocol, Rendered } from "./types.ts";
import {
  asArray,
  countRuns,
  eventStream,
  isRecord,
  json,
  schemaProperties,
  schemaRequired,
  sse,
  textOf,
} from "./types.ts";

const MODEL_ITEMS = new Set(["function_call", "custom_tool_call", "local_shell_call", "reasoning", "web_search_call"]);

function isModelItem(item: unknown): boolean {
  if (!isRecord(item)) return false;
  if (item.type === "message" || item.type === undefined) return item.role === "assistant";
  return typeof item.type === "string" && MODEL_ITEMS.has(item.type);
}

function parse(body: Record<string, unknown>): ParsedRequest {
  const input = asArray(body.input);
  const user = input
    .filter((item) => isRecord(item) && item.role === "user")
    .map((item) => textOf((item as Record<string, unknown>).content));
  const developer = input
    .filter((item) => isRecord(item) && item.role === "developer")
    .map((item) => textOf((item as Record<string, unknown>).content));
  const text = isRecord(body.text) ? body.text : {};
  return {
    model: typeof body.model === "string" ? body.model : "",
    stream: body.stream === true,
    tools: asArray(body.tools)
      .filter(isRecord)
      .filter((tool) => typeof tool.name === "string")
      .map((tool) => ({
        name: tool.name as string,
        kind: tool.type === "custom" ? ("custom" as const) : ("function" as const),
        parameters: schemaProperties(tool.parameters),
        required: schemaRequired(tool.parameters),
      })),
    modelTurns: countRuns(input, isModelItem),
    userText: user.join("\n"),
    contextText: [typeof body.instructions === "string" ? body.instructions : "", ...developer, ...user].join("\n"),
    wantsJson: isRecord(text.format) && text.format.type === "json_schema",
  };
}

function outputItems(answer: Answer, responseId: string): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (answer.text !== null) {
    items.push({
      type: "message",
      id: `${responseId}_msg`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: answer.text, annotations: [] }],
    });
  }
  for (const call of answer.calls) {
    items.push(
      call.kind === "custom"
        ? {
            type: "custom_tool_call",
            id: `ctc_${call.id}`,
            status: "completed",
            call_id: call.id,
            name: call.name,
            input: call.arguments,
          }
        : {
            type: "function_call",
            id: `fc_${call.id}`,
            status: "completed",
            call_id: call.id,
            name: call.name,
            arguments: JSON.stringify(call.arguments),
          },
    );
  }
  return items;
}

function render(answer: Answer, request: ParsedRequest): Rendered {
  const id = `resp_stub_${answer.calls[0]?.id ?? "text"}`;
  const usage = {
    input_tokens: answer.usage.input_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: answer.usage.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: answer.usage.input_tokens + answer.usage.output_tokens,
  };
  const items = outputItems(answer, id);
  const base = { id, object: "response", created_at: 0, model: request.model };
  const completed = { ...base, status: "completed", output: items, usage };
  if (!request.stream) return json(200, completed);
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>): string =>
    sse({ type, sequence_number: sequence++, ...fields }, type);
  const chunks = [
    event("response.created", { response: { ...base, status: "in_progress", output: [] } }),
    event("response.in_progress", { response: { ...base, status: "in_progress", output: [] } }),
  ];
  items.forEach((item, index) => {
    chunks.push(event("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress" } }));
    if (item.type === "message")
      chunks.push(
        event("response.output_text.delta", {
          output_index: index,
          item_id: item.id,
          content_index: 0,
          delta: answer.text,
        }),
      );
    if (item.type === "function_call")
      chunks.push(
        event("response.function_call_arguments.delta", {
          output_index: index,
          item_id: item.id,
          delta: item.arguments,
        }),
      );
    if (item.type === "custom_tool_call")
      chunks.push(
        event("response.custom_tool_call_input.delta", { output_index: index, item_id: item.id, delta: item.input }),
      );
    chunks.push(event("response.output_item.done", { output_index: index, item }));
  });
  chunks.push(event("response.completed", { response: completed }));
  return eventStream(chunks);
}

export const openaiResponses: Protocol = {
  name: "openai-responses",
  parse,
  render,
  renderError: (status, message) =>
    json(status, { error: { type: "invalid_request_error", code: null, message, param: null } }),
};
