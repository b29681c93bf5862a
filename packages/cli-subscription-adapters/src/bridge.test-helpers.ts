// A scripted Anthropic-style upstream for bridge tests: one streamed answer with known usage (input 100,
// 20 of them cached, output 7), remembering each request's path, headers and body.
import type { IncomingHttpHeaders } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface TestUpstream {
  readonly url: string;
  readonly received: { readonly path: string; readonly headers: IncomingHttpHeaders; readonly body: string }[];
  close(): Promise<void>;
}

const STREAM = [
  {
    type: "message_start",
    message: {
      id: "msg_1",
      model: "claude-sonnet-4-5",
      usage: { input_tokens: 80, cache_read_input_tokens: 20, output_tokens: 1 },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "done" } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7 } },
  { type: "message_stop" },
]
  .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
  .join("");

export async function startAnthropicUpstream(): Promise<TestUpstream> {
  const received: TestUpstream["received"] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      response.writeHead(200, { "content-type": "text/event-stream" }).end(STREAM);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
