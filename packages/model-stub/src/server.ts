import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { EvalError } from "@eval/errors";
import type { Decision } from "./answer.ts";
import { decide } from "./answer.ts";
import { anthropicMessages } from "./protocols/anthropic.ts";
import { gemini } from "./protocols/gemini.ts";
import { openaiChat } from "./protocols/openai-chat.ts";
import { openaiResponses } from "./protocols/openai-responses.ts";
import type { ParsedRequest, Protocol, ProtocolName, Rendered } from "./protocols/types.ts";
import { isRecord, json } from "./protocols/types.ts";
import { redactHeaders, redactPath, scrub, secretsOf } from "./redact.ts";
import type { Scenario } from "./scenario.ts";

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * `GET` here answers `{"evalgate_model_stub": 1, "scenario_sha256": "sha256:..."}`: which script this
 * endpoint serves, so a compliance report or a recorded session can name it. Not logged as a request.
 */
export const MODEL_STUB_IDENTITY_PATH = "/.well-known/evalgate-model-stub";
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** One request as logged: credentials replaced by `[redacted]`, in headers, query and body alike. */
export interface StubRequestLog {
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly protocol: ProtocolName | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly model: string | null;
  readonly stream: boolean;
  readonly tools_offered: readonly string[];
  readonly model_turns: number | null;
  readonly session: number | null;
  readonly turn: number | null;
  readonly status: number;
  readonly answer: {
    readonly text: string | null;
    readonly calls: readonly { readonly name: string; readonly arguments: unknown }[];
  } | null;
  readonly usage: { readonly input_tokens: number; readonly output_tokens: number } | null;
  readonly unmapped: readonly string[];
  /** The request body (JSON), secrets scrubbed. */
  readonly body: unknown;
}

export interface ModelStubOptions {
  readonly scenario: Scenario;
  /** Loopback only: 127.0.0.1 (default), ::1 or localhost. */
  readonly host?: string;
  /** 0 (default): any free port. */
  readonly port?: number;
  /** Appends one JSON line per request (the `StubRequestLog`). */
  readonly logFile?: string;
}

export interface ModelStub {
  /** `http://host:port`, without a trailing slash. */
  readonly url: string;
  /** The served scenario's digest (`Scenario.sha256`), also answered at MODEL_STUB_IDENTITY_PATH. */
  readonly scenarioSha256: string;
  readonly host: string;
  readonly port: number;
  requests(): readonly StubRequestLog[];
  close(): Promise<void>;
}

interface Route {
  readonly protocol: Protocol;
  readonly model: string | null;
  readonly stream: boolean | null;
}

function route(method: string, url: URL): Route | null {
  if (method !== "POST") return null;
  const path = url.pathname.replace(/\/+$/, "");
  if (path.endsWith("/v1/messages")) return { protocol: anthropicMessages, model: null, stream: null };
  if (path.endsWith("/v1/responses")) return { protocol: openaiResponses, model: null, stream: null };
  if (path.endsWith("/chat/completions")) return { protocol: openaiChat, model: null, stream: null };
  const geminiPath = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  if (geminiPath !== null)
    return {
      protocol: gemini,
      model: decodeURIComponent(geminiPath[1]!),
      stream: geminiPath[2] === "streamGenerateContent",
    };
  return null;
}

async function readBody(request: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(response: ServerResponse, rendered: Rendered): void {
  response.writeHead(rendered.status, { "content-type": rendered.contentType, "cache-control": "no-cache" });
  for (const chunk of rendered.chunks) response.write(chunk);
  response.end();
}

function answerSummary(decision: Decision): StubRequestLog["answer"] {
  if (decision.kind === "error") return null;
  return {
    text: decision.answer.text,
    calls: decision.answer.calls.map((call) => ({ name: call.name, arguments: call.arguments })),
  };
}

/**
 * Starts the scripted endpoint on loopback. Every request is answered from `scenario` and logged; a
 * path it does not serve gets a 404 in the protocol's error shape, a body that is not JSON a 400.
 */
export async function startModelStub(options: ModelStubOptions): Promise<ModelStub> {
  const host = options.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host)) {
    throw new EvalError(
      "EVAL_CONFIG_INVALID",
      `model-stub listens on loopback only; "${host}" is not 127.0.0.1, ::1 or localhost`,
      { hint: "omit --host, or pass --host 127.0.0.1" },
    );
  }
  const log: StubRequestLog[] = [];
  let seq = 0;
  const record = (entry: StubRequestLog): void => {
    log.push(entry);
    if (options.logFile !== undefined) appendFileSync(options.logFile, `${JSON.stringify(entry)}\n`);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", "http://stub");
    if (request.method === "GET" && url.pathname === MODEL_STUB_IDENTITY_PATH) {
      send(response, json(200, { evalgate_model_stub: 1, scenario_sha256: options.scenario.sha256 }));
      return;
    }
    const requestSeq = ++seq;
    const secrets = secretsOf(request.headers, url);
    const method = request.method ?? "GET";
    const body = await readBody(request);
    const base = { seq: requestSeq, method, path: redactPath(url), headers: redactHeaders(request.headers) };
    const found = route(method, url);
    let parsedBody: unknown = null;
    try {
      parsedBody = body === null || body.length === 0 ? null : JSON.parse(body.toString("utf8"));
    } catch {
      parsedBody = undefined;
    }
    const scrubbedBody =
      parsedBody === undefined ? null : (JSON.parse(scrub(JSON.stringify(parsedBody), secrets)) as unknown);
    const empty = {
      protocol: found?.protocol.name ?? null,
      model: null,
      stream: false,
      tools_offered: [],
      model_turns: null,
      session: null,
      turn: null,
      answer: null,
      usage: null,
      unmapped: [],
      body: scrubbedBody,
    };
    if (found === null || !isRecord(parsedBody)) {
      const status = found === null ? 404 : 400;
      const message =
        found === null ? `model-stub serves no ${method} ${url.pathname}` : "the request body is not a JSON object";
      record({ ...base, ...empty, status });
      send(response, found === null ? json(404, { error: { message } }) : found.protocol.renderError(400, message));
      return;
    }
    const parsed: ParsedRequest = {
      ...found.protocol.parse(parsedBody),
      ...(found.model === null ? {} : { model: found.model }),
      ...(found.stream === null ? {} : { stream: found.stream }),
    };
    const decision = decide(options.scenario, parsed, `call_${requestSeq}`);
    const rendered =
      decision.kind === "error"
        ? found.protocol.renderError(decision.status, decision.message)
        : found.protocol.render(decision.answer, parsed);
    record({
      ...base,
      ...empty,
      model: parsed.model,
      stream: parsed.stream,
      tools_offered: parsed.tools.map((tool) => tool.name),
      model_turns: parsed.modelTurns,
      session: decision.session,
      turn: decision.turn,
      status: rendered.status,
      answer: answerSummary(decision),
      usage: decision.kind === "answer" ? decision.answer.usage : null,
      unmapped: decision.kind === "answer" ? decision.unmapped : [],
    });
    send(response, rendered);
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        send(response, json(500, { error: { message: `model-stub: ${(error as Error).message}` } }));
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  }).catch((error: NodeJS.ErrnoException) => {
    throw new EvalError(
      "EVAL_CONFIG_INVALID",
      `model-stub cannot listen on ${host}:${options.port ?? 0} (${error.code ?? error.message})`,
      { hint: "choose another --port, or omit it for a free one" },
    );
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    scenarioSha256: options.scenario.sha256,
    host,
    port,
    requests: () => [...log],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The scenario digest a model stub at `baseUrl` serves (any path under its origin), or null when the
 * origin is not loopback, does not answer within `timeoutMs`, or is not a model stub. Only loopback
 * origins are asked: a provider's API is never sent this request.
 */
export async function probeModelStub(baseUrl: string, timeoutMs = 2000): Promise<string | null> {
  let origin: URL;
  try {
    origin = new URL(baseUrl);
  } catch {
    return null;
  }
  if (!LOOPBACK.has(origin.hostname.replace(/^\[|\]$/g, "")) || origin.protocol !== "http:") return null;
  try {
    const response = await fetch(new URL(MODEL_STUB_IDENTITY_PATH, origin), { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return null;
    const body = (await response.json()) as { evalgate_model_stub?: unknown; scenario_sha256?: unknown };
    return body.evalgate_model_stub === 1 &&
      typeof body.scenario_sha256 === "string" &&
      /^sha256:[0-9a-f]{64}$/.test(body.scenario_sha256)
      ? body.scenario_sha256
      : null;
  } catch {
    return null;
  }
}
