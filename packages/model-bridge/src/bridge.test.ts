import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelBridgeOptions } from "./bridge.ts";
import { startModelBridge } from "./bridge.ts";
import type { WireProtocol } from "./protocols.ts";
import { startTestUpstream } from "./test-upstream.test-helpers.ts";
import type { TestUpstream } from "./test-upstream.test-helpers.ts";

const REAL_KEY = "sk-real-0123456789abcdef";
const CASE_KEY = "evalgate-case-key-4242424242";
let dir: string;
let upstream: TestUpstream;
let sockets = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "evalgate-bridge-test-"));
  upstream = await startTestUpstream();
});
afterAll(async () => {
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

const CALLS: Record<WireProtocol, { path: string; headers: Record<string, string>; body: unknown }> = {
  "anthropic-messages": {
    path: "/v1/messages?beta=true",
    headers: { "x-api-key": CASE_KEY },
    body: { model: "claude-sonnet-4-5-20250929", stream: true, messages: [] },
  },
  "openai-responses": {
    path: "/v1/responses",
    headers: { authorization: `Bearer ${CASE_KEY}` },
    body: { model: "gpt-5", stream: true, input: [] },
  },
  "openai-chat": {
    path: "/v1/chat/completions",
    headers: { authorization: `Bearer ${CASE_KEY}` },
    body: { model: "gpt-4.1", stream: true, messages: [] },
  },
  gemini: {
    path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    headers: { "x-goog-api-key": CASE_KEY },
    body: { contents: [] },
  },
};

function call(
  socketPath: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const outgoing = request(
      {
        socketPath,
        path,
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("end", () =>
          resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

async function bridge(overrides: Partial<ModelBridgeOptions> = {}, localPrefix = "") {
  sockets += 1;
  return startModelBridge({
    socketPath: join(dir, `b${sockets}.sock`),
    upstream: { baseUrl: upstream.url, apiKey: REAL_KEY },
    localPrefix,
    clientKey: CASE_KEY,
    ...overrides,
  });
}

describe("the model bridge", () => {
  it.each(Object.keys(CALLS) as WireProtocol[])(
    "forwards a %s call with the real key swapped in and meters its streamed usage",
    async (protocol) => {
      const b = await bridge();
      const { path, headers, body } = CALLS[protocol];
      upstream.received.length = 0;
      const answer = await call(b.socketPath, path, headers, body);
      expect(answer.status).toBe(200);
      const seen = upstream.received[0]!;
      expect(seen.path).toBe(path);
      const keyHeaders = [seen.headers["x-api-key"], seen.headers.authorization, seen.headers["x-goog-api-key"]].filter(
        (value) => value !== undefined,
      );
      expect(keyHeaders).toHaveLength(1);
      expect(keyHeaders[0]).toContain(REAL_KEY);
      expect(JSON.stringify(seen.headers)).not.toContain(CASE_KEY);
      const figures = b.figures();
      expect(figures).toMatchObject({ requests: 1, input_tokens: 100, cached_input_tokens: 20, output_tokens: 7 });
      expect(figures.cost_usd).toBeGreaterThan(0);
      expect(JSON.stringify(b.exchanges())).not.toContain(REAL_KEY);
      expect(JSON.stringify(b.exchanges())).not.toContain(CASE_KEY);
      await b.close();
    },
  );

  it("prices usage from the table: Sonnet 4.5 at $3/$0.30/$15 per million", async () => {
    const b = await bridge();
    const { path, headers, body } = CALLS["anthropic-messages"];
    await call(b.socketPath, path, headers, body);
    expect(b.figures().cost_usd).toBeCloseTo((80 * 3 + 20 * 0.3 + 7 * 15) / 1e6, 12);
    await b.close();
  });

  it("keeps an unknown model's cost unknown, never 0", async () => {
    const b = await bridge();
    const { path, headers } = CALLS["openai-responses"];
    await call(b.socketPath, path, headers, { model: "gpt-5.5-unpriced-x", input: [] });
    expect(b.figures()).toMatchObject({ cost_usd: null, unpriced_models: ["gpt-5.5-unpriced-x"], output_tokens: 7 });
    await b.close();
  });

  it("maps the local /v1 prefix onto the upstream's base path", async () => {
    const b = await startModelBridge({
      socketPath: join(dir, "prefix.sock"),
      upstream: { baseUrl: `${upstream.url}/openai/v1`, apiKey: null },
      localPrefix: "/v1",
      clientKey: CASE_KEY,
    });
    upstream.received.length = 0;
    await call(b.socketPath, "/v1/responses", CALLS["openai-responses"].headers, CALLS["openai-responses"].body);
    expect(upstream.received[0]!.path).toBe("/openai/v1/responses");
    // No key configured (a local model server): none is sent, and the dummy key never leaves.
    expect(upstream.received[0]!.headers.authorization).toBeUndefined();
    await b.close();
  });

  it("refuses a call without the case's key (401), forwarding nothing", async () => {
    const b = await bridge();
    upstream.received.length = 0;
    const answer = await call(b.socketPath, "/v1/messages", { "x-api-key": "some-other-case-key" }, {});
    expect(answer.status).toBe(401);
    expect(upstream.received).toHaveLength(0);
    await b.close();
  });

  it.each(Object.keys(CALLS) as WireProtocol[])(
    "past a one-request budget answers the next %s call with the protocol's 400 and says so once",
    async (protocol) => {
      const stops: unknown[] = [];
      const b = await bridge({ budget: { maxRequests: 1 }, onBudgetStop: (stop) => stops.push(stop) });
      const { path, headers, body } = CALLS[protocol];
      expect((await call(b.socketPath, path, headers, body)).status).toBe(200);
      upstream.received.length = 0;
      const refused = await call(b.socketPath, path, headers, body);
      expect(refused.status).toBe(400);
      expect(refused.text).toMatch(/budget of 1 model request/);
      expect(JSON.parse(refused.text)).toHaveProperty("error");
      expect(upstream.received).toHaveLength(0);
      expect(b.budgetStop()).toMatchObject({ refused_request: 2 });
      expect(stops).toHaveLength(1);
      expect(b.figures().requests).toBe(1);
      await b.close();
    },
  );

  it("a run-wide ledger stops every bridge once the run's cap is spent", async () => {
    const ledger = { spentUsd: 0, capUsd: 0.0001 };
    const first = await bridge({ ledger });
    const second = await bridge({ ledger });
    const { path, headers, body } = CALLS["anthropic-messages"];
    expect((await call(first.socketPath, path, headers, body)).status).toBe(200);
    expect(ledger.spentUsd).toBeGreaterThan(0.0001);
    const refused = await call(second.socketPath, path, headers, body);
    expect(refused.status).toBe(400);
    expect(second.budgetStop()?.reason).toMatch(/run's cost cap/);
    await Promise.all([first.close(), second.close()]);
  });

  it("forwards non-model calls unmetered", async () => {
    const b = await bridge();
    const answer = await call(b.socketPath, "/v1/models", { "x-api-key": CASE_KEY }, {});
    expect(answer.status).toBe(200);
    expect(b.figures().requests).toBe(0);
    expect(b.exchanges()).toHaveLength(1);
    await b.close();
  });
});
