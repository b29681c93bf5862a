// Gemini `generateContent` / `streamGenerateContent` (`POST /v1beta/models/{model}:{method}`), as Gemini CLI speaks it.
import type { Answer, ParsedRequest, Protocol, Rendered } from "./types.ts";
import { asArray, eventStream, isRecord, json, schemaProperties, schemaRequired, sse } from "./types.ts";

function partsText(content: unknown): string {
  if (!isRecord(content)) return "";
  return asArray(content.parts)
    .map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : ""))
    .join("\n");
}

function declarations(body: Record<string, unknown>): Record<string, unknown>[] {
  return asArray(body.tools)
    .filter(isRecord)
    .flatMap((tool) => asArray(tool.functionDeclarations ?? tool.function_declarations))
    .filter(isRecord);
}

/** The stream flag and model come from the URL; `parseGemini` is given both by the server. */
function parse(body: Record<string, unknown>): ParsedRequest {
  const contents = asArray(body.contents).filter(isRecord);
  const user = contents.filter((content) => content.role === "user").map(partsText);
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  return {
    model: "",
    stream: false,
    tools: declarations(body)
      .filter((fn) => typeof fn.name === "string")
      .map((fn) => ({
        name: fn.name as string,
        kind: "function" as const,
        parameters: schemaProperties(fn.parametersJsonSchema ?? fn.parameters),
        required: schemaRequired(fn.parametersJsonSchema ?? fn.parameters),
      })),
    modelTurns: contents.filter((content) => content.role === "model").length,
    userText: user.join("\n"),
    contextText: `${partsText(body.systemInstruction)}\n${user.join("\n")}`,
    wantsJson:
      config.responseMimeType === "application/json" ||
      config.responseJsonSchema !== undefined ||
      config.responseSchema !== undefined,
  };
}

function render(answer: Answer, request: ParsedRequest): Rendered {
  const parts: Record<string, unknown>[] = [];
  if (answer.text !== null) parts.push({ text: answer.text });
  for (const call of answer.calls) parts.push({ functionCall: { id: call.id, name: call.name, args: call.arguments } });
  const usageMetadata = {
    promptTokenCount: answer.usage.input_tokens,
    candidatesTokenCount: answer.usage.output_tokens,
    totalTokenCount: answer.usage.input_tokens + answer.usage.output_tokens,
  };
  const response = {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata,
    modelVersion: request.model,
  };
  return request.stream ? eventStream([sse(response)]) : json(200, response);
}

export const gemini: Protocol = {
  name: "gemini",
  parse,
  render,
  renderError: (status, message) =>
    json(status, {
      error: { code: status, message, status: status === 429 ? "RESOURCE_EXHAUSTED" : "INVALID_ARGUMENT" },
    }),
};
