// The bridge's bad paths, against real sockets: an upstream that is down, dies mid-stream, echoes the key
// or answers in JSON; requests that are malformed, oversized, keyed in the query, or carry a secret in
// their body; a client that hangs up; budgets at their edges; replays that answer or diverge.
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelBridgeOptions } from "./bridge.ts";
import { startModelBridge } from "./bridge.ts";
import type { RecordedExchange } from "./exchanges.ts";
import { createReplayMatcher } from "./replay.ts";
import { SCRIPTED } from "./test-upstream.test-helpers.ts";

const REAL_KEY = "sk-real-0123456789abcdef";
const CASE_KEY = "evalgate-case-key-4242424242";
const ANTHROPIC = { "x-api-key": CASE_KEY };
let dir: string;
let sockets = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "evalgate-bridge-edges-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Seen {
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

/** An upstream answering with `handler`; `closed` counts requests whose connection went away unanswered. */
async function upstreamWith(handler: (request: IncomingMessage, response: ServerResponse, body: string) => void) {
  const seen: Seen[] = [];
  let closed = 0;
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ path: incoming.url ?? "", headers: incoming.headers, body });
      response.on("close", () => {
        if (!response.writableFinished) closed += 1;
      });
      handler(incoming, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    closed: () => closed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function call(
  socketPath: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer,
  onFirstByte?: (abort: () => void) => void,
): Promise<{ status: number; text: string; error?: string }> {
  return new Promise((resolve) => {
    const outgoing = request(
      {
        socketPath,
        path,
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          if (chunks.length === 1 && onFirstByte !== undefined) onFirstByte(() => outgoing.destroy());
        });
        incoming.on("end", () =>
          resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        incoming.on("error", (error) =>
          resolve({
            status: incoming.statusCode ?? 0,
            text: Buffer.concat(chunks).toString("utf8"),
            error: error.message,
          }),
        );
        incoming.on("aborted", () =>
          resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), error: "aborted" }),
        );
      },
    );
    outgoing.on("error", (error) => resolve({ status: 0, text: "", error: error.message }));
    outgoing.end(body);
  });
}

const json = (value: unknown): string => JSON.stringify(value);
const sonnet = json({ model: "claude-sonnet-4-5", stream: true, messages: [{ role: "user", content: "hi" }] });

async function bridge(baseUrl: string, overrides: Partial<ModelBridgeOptions> = {}) {
  sockets += 1;
  return startModelBridge({
    socketPath: join(dir, `e${sockets}.sock`),
    upstream: { baseUrl, apiKey: REAL_KEY },
    localPrefix: "",
    clientKey: CASE_KEY,
    ...overrides,
  });
}

const streamed = (response: ServerResponse, body: string): void =>
  void response.writeHead(200, { "content-type": "text/event-stream" }).end(body);

describe("the bridge when the upstream misbehaves", () => {
  it("upstream down: the agent gets the protocol's error with status 502, naming no key; the call is counted, no usage", async () => {
    const gone = await upstreamWith(() => undefined);
    await gone.close();
    const b = await bridge(gone.url);
    const answer = await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet);
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text)).toMatchObject({
      type: "error",
      error: { message: expect.stringMatching(/evalgate bridge: .*ECONNREFUSED/) },
    });
    expect(answer.text).not.toContain(REAL_KEY);
    expect(b.figures()).toMatchObject({ requests: 1, input_tokens: 0, output_tokens: 0 });
    await b.close();
  });

  it("upstream down (connection refused): recorded once as unreachable, naming the endpoint's host and no key", async () => {
    const gone = await upstreamWith(() => undefined);
    await gone.close();
    const seen: unknown[] = [];
    const b = await bridge(gone.url, { onUnreachable: (unreachable) => seen.push(unreachable) });
    expect(b.unreachable()).toBeNull();
    await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet);
    await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet);
    const host = new URL(gone.url).host;
    expect(b.unreachable()).toEqual({ host, error_code: "ECONNREFUSED", request: 1 });
    expect(seen).toEqual([b.unreachable()]);
    expect(JSON.stringify(b.unreachable())).not.toContain(REAL_KEY);
    await b.close();
  });

  it("an unknown host is unreachable too (ENOTFOUND or EAI_AGAIN, as the resolver answers)", async () => {
    const b = await bridge("http://evalgate-no-such-host.invalid");
    const answer = await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet);
    expect(answer.status).toBe(502);
    expect(b.unreachable()).toMatchObject({
      host: "evalgate-no-such-host.invalid",
      error_code: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN|EAI_FAIL)$/),
    });
    await b.close();
  }, 60_000);

  it("an upstream that answers, even with an HTTP error or by dying mid-stream, is reachable: nothing recorded", async () => {
    const failing = await upstreamWith((_request, response) =>
      response.writeHead(500, { "content-type": "application/json" }).end(json({ error: "overloaded" })),
    );
    const b = await bridge(failing.url);
    const answer = await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet);
    expect(answer.status).toBe(500);
    expect(b.unreachable()).toBeNull();
    expect(b.exchanges()).toEqual([expect.objectContaining({ status: 500 })]);
    // The agent picks the path, never the host: a path naming a closed port still goes to the upstream.
    const aimed = await call(b.socketPath, `//127.0.0.1:1/v1/messages`, ANTHROPIC, sonnet);
    expect(aimed.status).toBe(500);
    expect(b.unreachable()).toBeNull();
    const dying = await upstreamWith((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(SCRIPTED["anthropic-messages"].slice(0, 60));
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const d = await bridge(dying.url);
    await call(d.socketPath, "/v1/messages", ANTHROPIC, sonnet);
    expect(d.unreachable()).toBeNull();
    await Promise.all([b.close(), d.close(), failing.close(), dying.close()]);
  });

  it("upstream dies mid-stream: the agent's response is cut (never completed as if whole)", async () => {
    const dying = await upstreamWith((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(SCRIPTED["anthropic-messages"].slice(0, 60));
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const b = await bridge(dying.url);
    const answer = await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet);
    expect(answer.status).toBe(200);
    expect(answer.error).toBeDefined();
    expect(answer.text.length).toBeLessThan(SCRIPTED["anthropic-messages"].length);
    await Promise.all([b.close(), dying.close()]);
  });

  it("an upstream that echoes the real key: the agent and the record get [REDACTED]", async () => {
    const echo = await upstreamWith((incoming, response) => {
      response
        .writeHead(401, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"] })
        .end(json({ type: "error", error: { message: `invalid x-api-key ${String(incoming.headers["x-api-key"])}` } }));
    });
    const b = await bridge(echo.url);
    const answer = await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet);
    expect(answer.status).toBe(401);
    expect(answer.text).toContain("[REDACTED]");
    expect(answer.text).not.toContain(REAL_KEY);
    expect(JSON.stringify(b.exchanges())).not.toContain(REAL_KEY);
    expect(b.exchanges()[0]).toMatchObject({ status: 401, content_type: "application/json" });
    await Promise.all([b.close(), echo.close()]);
  });

  it("meters a JSON (not streamed) answer, and Gemini's JSON array of chunks", async () => {
    const plain = await upstreamWith((incoming, response) => {
      const body = incoming.url!.includes(":generateContent")
        ? json([
            { usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 3 } },
            {
              usageMetadata: {
                promptTokenCount: 50,
                candidatesTokenCount: 9,
                thoughtsTokenCount: 4,
                cachedContentTokenCount: 10,
              },
            },
          ])
        : json({
            id: "msg_1",
            usage: {
              input_tokens: 30,
              cache_creation_input_tokens: 100,
              cache_read_input_tokens: 5,
              output_tokens: 11,
            },
          });
      response.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    const b = await bridge(plain.url);
    await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet);
    expect(b.figures()).toMatchObject({
      requests: 1,
      input_tokens: 135,
      cached_input_tokens: 5,
      cache_write_tokens: 100,
      output_tokens: 11,
    });
    // Sonnet 4.5: 30 plain at $3, 5 read at $0.30, 100 written at $3.75, 11 out at $15 per million.
    expect(b.figures().cost_usd).toBeCloseTo((30 * 3 + 5 * 0.3 + 100 * 3.75 + 11 * 15) / 1e6, 12);
    await call(
      b.socketPath,
      "/v1beta/models/gemini-2.5-flash:generateContent",
      { "x-goog-api-key": CASE_KEY },
      json({ contents: [] }),
    );
    expect(b.figures()).toMatchObject({ requests: 2, input_tokens: 185, cached_input_tokens: 15, output_tokens: 24 });
    await Promise.all([b.close(), plain.close()]);
  });

  it("a client that hangs up mid-stream: the upstream call is dropped too", async () => {
    const slow = await upstreamWith((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: {}\n\n");
      const timer = setInterval(() => response.write("data: {}\n\n"), 20);
      response.on("close", () => clearInterval(timer));
    });
    const b = await bridge(slow.url);
    const answer = await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet, (abort) => abort());
    expect(answer.error).toBeDefined();
    await expect.poll(() => slow.closed(), { timeout: 5_000 }).toBe(1);
    await Promise.all([b.close(), slow.close()]);
  });
});

describe("the bridge when the request is malformed", () => {
  let upstream: Awaited<ReturnType<typeof upstreamWith>>;
  beforeAll(async () => {
    upstream = await upstreamWith((incoming, response) =>
      streamed(response, SCRIPTED[incoming.url!.includes("chat") ? "openai-chat" : "anthropic-messages"]),
    );
  });
  afterAll(() => upstream.close());

  it("a body that is not JSON is forwarded and recorded as text; its model is unnamed, so its cost is unknown", async () => {
    const b = await bridge(upstream.url);
    const answer = await call(b.socketPath, "/v1/messages", ANTHROPIC, "{not json");
    expect(answer.status).toBe(200);
    expect(b.exchanges()[0]).toMatchObject({ request_body: "{not json", model: null });
    expect(b.figures()).toMatchObject({ cost_usd: null, unpriced_models: ["(no model named)"], output_tokens: 7 });
    await b.close();
  });

  it("an empty body is recorded as empty", async () => {
    const b = await bridge(upstream.url);
    await call(b.socketPath, "/v1/messages", ANTHROPIC, "");
    expect(b.exchanges()[0]!.request_body).toBe("");
    await b.close();
  });

  it("a body over the cap is answered 413 in the protocol's shape and never forwarded", async () => {
    const b = await bridge(upstream.url, { maxRequestBytes: 64 * 1024 });
    const before = upstream.seen.length;
    const answer = await call(b.socketPath, "/v1/messages", ANTHROPIC, Buffer.alloc(1024 * 1024, 0x20));
    expect(answer).toMatchObject({ status: 413 });
    expect(answer.error).toBeUndefined();
    expect(JSON.parse(answer.text)).toMatchObject({
      type: "error",
      error: { message: "evalgate bridge: request body over 65536 bytes" },
    });
    expect(upstream.seen.length).toBe(before);
    expect(b.figures().requests).toBe(0);
    // At the cap exactly, the body goes through.
    expect((await call(b.socketPath, "/v1/messages", ANTHROPIC, Buffer.alloc(64 * 1024, 0x20))).status).toBe(200);
    await b.close();
  });

  it("the agent's key in the body is cut from the record; the body stays JSON", async () => {
    const b = await bridge(upstream.url);
    await call(
      b.socketPath,
      "/v1/messages",
      ANTHROPIC,
      json({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: `my key is ${CASE_KEY}` }] }),
    );
    expect(b.exchanges()[0]!.request_body).toMatchObject({ messages: [{ content: "my key is [REDACTED]" }] });
    // Upstream, the dummy key is as harmless as it is useless; what leaves is never the real key in a body.
    expect(upstream.seen.at(-1)!.body).not.toContain(REAL_KEY);
    await b.close();
  });

  it("a key in the query (Gemini clients may send one) is accepted and stripped from the upstream URL and the record", async () => {
    const b = await bridge(upstream.url);
    const answer = await call(
      b.socketPath,
      `/v1/chat/completions?key=${CASE_KEY}&x=1`,
      {},
      json({ model: "gpt-4.1", messages: [] }),
    );
    expect(answer.status).toBe(200);
    expect(upstream.seen.at(-1)!.path).toBe("/v1/chat/completions?x=1");
    expect(upstream.seen.at(-1)!.headers.authorization).toBe(`Bearer ${REAL_KEY}`);
    expect(b.exchanges()[0]!.path).toBe("/v1/chat/completions?x=1");
    await b.close();
  });

  it("a wrong key in the query is refused like a wrong header", async () => {
    const b = await bridge(upstream.url);
    expect((await call(b.socketPath, "/v1/chat/completions?key=guess", {}, "{}")).status).toBe(401);
    expect(
      (await call(b.socketPath, "/v1/chat/completions", { authorization: `Bearer ${CASE_KEY}x` }, "{}")).status,
    ).toBe(401);
    await b.close();
  });
});

describe("budgets at their edges", () => {
  let upstream: Awaited<ReturnType<typeof upstreamWith>>;
  beforeAll(async () => {
    upstream = await upstreamWith((_incoming, response) => streamed(response, SCRIPTED["anthropic-messages"]));
  });
  afterAll(() => upstream.close());

  it("a budget of 0 requests refuses the first model call, but not a model list", async () => {
    const b = await bridge(upstream.url, { budget: { maxRequests: 0 } });
    expect((await call(b.socketPath, "/v1/models", ANTHROPIC, "")).status).toBe(200);
    const refused = await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet);
    expect(refused.status).toBe(400);
    expect(b.budgetStop()).toMatchObject({ refused_request: 1 });
    await b.close();
  });

  it("a cost budget lets the call that crosses it finish and refuses the next", async () => {
    const oneCall = (80 * 3 + 20 * 0.3 + 7 * 15) / 1e6;
    const b = await bridge(upstream.url, { budget: { maxCostUsd: oneCall * 1.5 } });
    expect((await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet)).status).toBe(200);
    expect((await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet)).status).toBe(200);
    const refused = await call(b.socketPath, "/v1/messages", ANTHROPIC, sonnet);
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/budget of \$0\.000\d+ is spent/);
    expect(b.budgetStop()).toMatchObject({ refused_request: 3 });
    // Refused calls are neither counted nor forwarded.
    expect(b.figures().requests).toBe(2);
    await b.close();
  });

  it("a cost budget cannot act on an unpriced model (its spend is unknown), and the run's ledger is not charged", async () => {
    const ledger = { spentUsd: 0, capUsd: 1e-9 };
    const b = await bridge(upstream.url, { budget: { maxCostUsd: 1e-9 }, ledger });
    const unpriced = json({ model: "claude-unlisted-9", messages: [] });
    expect((await call(b.socketPath, "/v1/messages", ANTHROPIC, unpriced)).status).toBe(200);
    expect((await call(b.socketPath, "/v1/messages", ANTHROPIC, unpriced)).status).toBe(200);
    expect(ledger.spentUsd).toBe(0);
    expect(b.figures()).toMatchObject({ requests: 2, cost_usd: null });
    await b.close();
  });
});

describe("replay at the bridge", () => {
  const recorded = (prompt: string): RecordedExchange[] => [
    {
      index: 0,
      method: "GET",
      path: "/v1/models",
      protocol: null,
      model: null,
      request_body: "",
      status: 200,
      content_type: "application/json",
      response_body: '{"data":[]}',
      usage: { input_tokens: 0, cached_input_tokens: 0, cache_write_tokens: 0, output_tokens: 0 },
      duration_ms: 1,
    },
    {
      index: 1,
      method: "POST",
      path: "/v1/messages",
      protocol: "anthropic-messages",
      model: "claude-sonnet-4-5",
      request_body: { model: "claude-sonnet-4-5", messages: [{ role: "user", content: prompt }] },
      status: 200,
      content_type: "text/event-stream",
      response_body: SCRIPTED["anthropic-messages"],
      usage: { input_tokens: 100, cached_input_tokens: 20, cache_write_tokens: 0, output_tokens: 7 },
      duration_ms: 3,
    },
  ];

  it("answers from the recording, meters the recorded usage, and sends nothing upstream", async () => {
    const b = await bridge("http://replay.invalid", { replay: createReplayMatcher(recorded("Fix it")) });
    const answer = await call(
      b.socketPath,
      "/v1/messages",
      ANTHROPIC,
      json({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Fix it" }] }),
    );
    expect(answer).toMatchObject({ status: 200, text: SCRIPTED["anthropic-messages"] });
    expect(b.figures()).toMatchObject({ requests: 1, input_tokens: 100, output_tokens: 7 });
    expect(b.exchanges()).toHaveLength(1);
    expect(b.divergence()).toBeNull();
    await b.close();
  });

  it("a changed prompt is refused with the protocol's 400 naming the field; the divergence is reported once", async () => {
    const seen: unknown[] = [];
    const b = await bridge("http://replay.invalid", {
      replay: createReplayMatcher(recorded("Fix it")),
      onDivergence: (divergence) => seen.push(divergence),
    });
    const changed = json({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Break it" }] });
    const first = await call(b.socketPath, "/v1/messages", ANTHROPIC, changed);
    expect(first.status).toBe(400);
    expect(first.text).toContain("evalgate replay diverged at messages[first user].text");
    await call(b.socketPath, "/v1/messages", ANTHROPIC, changed);
    expect(seen).toHaveLength(1);
    expect(b.divergence()).toMatchObject({
      index: 0,
      field: "messages[first user].text",
      recorded: "Fix it",
      received: "Break it",
    });
    // A non-model call with no recording diverges too (request count), but the first divergence stands.
    expect((await call(b.socketPath, "/v1/other", ANTHROPIC, "")).status).toBe(400);
    expect(b.divergence()!.field).toBe("messages[first user].text");
    await b.close();
  });
});
