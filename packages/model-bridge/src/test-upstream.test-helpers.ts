// A small scripted upstream for tests: answers each protocol's model call with a fixed stream whose usage
// figures are known, and remembers what it received (path and headers).
import type { IncomingHttpHeaders, Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { WireProtocol } from "./protocols.ts";
import { protocolOfPath } from "./protocols.ts";

export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const sse = (events: readonly unknown[], done = false): string =>
  events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : "");

/** One streamed answer per protocol, each with input 100 (20 cached), output 7. */
export const SCRIPTED: Record<WireProtocol, string> = {
  "anthropic-messages": sse([
    {
      type: "message_start",
      message: {
        id: "msg_1",
        model: "claude-sonnet-4-5",
        usage: { input_tokens: 80, cache_read_input_tokens: 20, cache_creation_input_tokens: 0, output_tokens: 1 },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "done" } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7 } },
    { type: "message_stop" },
  ]),
  "openai-responses": sse([
    { type: "response.created", response: { id: "resp_1" } },
    {
      type: "response.completed",
      response: {
        id: "resp_1",
        usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 20 }, output_tokens: 7 },
      },
    },
  ]),
  "openai-chat": sse(
    [
      { choices: [{ index: 0, delta: { content: "done" } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      {
        choices: [],
        usage: { prompt_tokens: 100, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 20 } },
      },
    ],
    true,
  ),
  gemini: sse([
    {
      candidates: [{ content: { role: "model", parts: [{ text: "do" }] } }],
      usageMetadata: { promptTokenCount: 100, cachedContentTokenCount: 20, candidatesTokenCount: 1 },
    },
    {
      candidates: [{ content: { role: "model", parts: [{ text: "ne" }] }, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 100, cachedContentTokenCount: 20, candidatesTokenCount: 7 },
    },
  ]),
};

export interface TestUpstream {
  readonly url: string;
  readonly received: Received[];
  close(): Promise<void>;
}

export async function startTestUpstream(): Promise<TestUpstream> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const protocol = protocolOfPath(request.url ?? "");
      if (protocol === null)
        return void response.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}');
      response.writeHead(200, { "content-type": "text/event-stream" });
      // Two writes, split mid-event, as a real stream arrives.
      const body = SCRIPTED[protocol];
      response.write(body.slice(0, 40));
      setTimeout(() => response.end(body.slice(40)), 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
