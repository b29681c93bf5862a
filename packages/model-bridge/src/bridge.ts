// The host side of an agent's only door: an HTTP server on a unix socket (bound into the sandbox, where a
// relay exposes it on 127.0.0.1) that forwards model calls to the upstream with the real key, meters the
// usage each response reports, refuses calls past a budget, and records every exchange.
import { rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { Socket } from "node:net";
import { Meter } from "./meter.ts";
import type { MeteredFigures } from "./meter.ts";
import type { PriceTable } from "./price-table.ts";
import { PRICE_TABLE } from "./price-table.ts";
import type { WireProtocol } from "./protocols.ts";
import { CLIENT_KEY_HEADERS, modelOf, protocolError, protocolOfPath } from "./protocols.ts";
import type { RecordedExchange, ReplayDivergence, ReplayMatcher } from "./exchanges.ts";
import { forwardUpstream, UpstreamUnreachable } from "./forward.ts";
import type { Upstream } from "./forward.ts";

/** Per case trial: the most model calls, and the most priced spend, the agent may make. */
export interface CaseBudget {
  readonly maxRequests?: number;
  readonly maxCostUsd?: number;
}

/** The run's spend, shared by every bridge of a run: a call past `capUsd` is refused in every case. */
export interface SpendLedger {
  spentUsd: number;
  readonly capUsd: number;
}

export interface BudgetStop {
  readonly reason: string;
  /** 1-based number of the refused model call. */
  readonly refused_request: number;
  /** When the refusal was sent (ms since the epoch). */
  readonly refused_at: number;
}

/** The first model call whose upstream could not be connected to (refused, unknown host, connect timeout). */
export interface UnreachableUpstream {
  /** The endpoint's host (and port), never its key. */
  readonly host: string;
  /** The system's error code, e.g. ECONNREFUSED, ENOTFOUND, ETIMEDOUT. */
  readonly error_code: string;
  /** 1-based number of the model call that failed. */
  readonly request: number;
}

export interface ModelBridgeOptions {
  /** Where the bridge listens (its directory is bound into the sandbox). */
  readonly socketPath: string;
  /** Where model calls go; ignored when `replay` answers them. */
  readonly upstream: Upstream;
  /** The path prefix of the base URL the CLI was given (`/v1` or ""), removed before the upstream's own path. */
  readonly localPrefix: string;
  /** The per-case dummy key the agent holds: a call without it is refused (401). */
  readonly clientKey: string;
  readonly budget?: CaseBudget;
  readonly ledger?: SpendLedger;
  readonly prices?: PriceTable;
  /** Answer from a recording instead of the upstream (nothing leaves the host). */
  readonly replay?: ReplayMatcher;
  /** Called once, when the first call is refused for budget (the harness stops the agent soon after). */
  readonly onBudgetStop?: (stop: BudgetStop) => void;
  /** Called once, when a replayed conversation first departs from its recording. */
  readonly onDivergence?: (divergence: ReplayDivergence) => void;
  /** Called once, when the upstream first cannot be connected to (the harness stops the agent soon after). */
  readonly onUnreachable?: (unreachable: UnreachableUpstream) => void;
  /** The largest request body forwarded (default 64 MiB); a larger one is answered 413. */
  readonly maxRequestBytes?: number;
}

export interface ModelBridge {
  readonly socketPath: string;
  figures(): MeteredFigures;
  /** Every exchange so far, in order, with the real key and the client key removed. */
  exchanges(): readonly RecordedExchange[];
  budgetStop(): BudgetStop | null;
  divergence(): ReplayDivergence | null;
  unreachable(): UnreachableUpstream | null;
  close(): Promise<void>;
}

const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** Starts a bridge listening on `options.socketPath`. */
export async function startModelBridge(options: ModelBridgeOptions): Promise<ModelBridge> {
  const meter = new Meter(options.prices ?? PRICE_TABLE);
  const exchanges: RecordedExchange[] = [];
  const sockets = new Set<Socket>();
  let stop: BudgetStop | null = null;
  let divergence: ReplayDivergence | null = null;
  let unreachable: UnreachableUpstream | null = null;
  const secrets = [options.clientKey, ...(options.upstream.apiKey === null ? [] : [options.upstream.apiKey])];

  const refuse = (response: ServerResponse, protocol: WireProtocol | null, message: string, status?: number): void => {
    const error = protocolError(protocol, message);
    response.writeHead(status ?? error.status, { "content-type": "application/json" }).end(error.body);
  };

  /** Why this model call may not go out (or null): the case's request and spend budgets, then the run's cap. */
  const overBudget = (): string | null => {
    const { maxRequests, maxCostUsd } = options.budget ?? {};
    if (maxRequests !== undefined && meter.requests >= maxRequests)
      return `the case's budget of ${maxRequests} model request(s) is spent`;
    if (maxCostUsd !== undefined && meter.pricedCostUsd >= maxCostUsd)
      return `the case's budget of $${maxCostUsd} is spent ($${meter.pricedCostUsd.toFixed(4)})`;
    const ledger = options.ledger;
    if (ledger !== undefined && ledger.spentUsd >= ledger.capUsd)
      return `the run's cost cap of $${ledger.capUsd} is reached ($${ledger.spentUsd.toFixed(4)})`;
    return null;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = request.url ?? "/";
    const protocol = protocolOfPath(path);
    if (!carriesKey(request, options.clientKey))
      return refuse(response, protocol, "evalgate bridge: this request does not carry the case's key", 401);
    const maxBytes = options.maxRequestBytes ?? MAX_REQUEST_BYTES;
    const body = await readBody(request, maxBytes);
    if (body === null) return refuse(response, protocol, `evalgate bridge: request body over ${maxBytes} bytes`, 413);
    const parsed = parseJson(body);
    const model = modelOf(path, parsed);
    if (protocol !== null) {
      const why = overBudget();
      if (why !== null) {
        stop ??= { reason: why, refused_request: meter.requests + 1, refused_at: Date.now() };
        refuse(response, protocol, `evalgate: ${why}`);
        options.onBudgetStop?.(stop);
        return;
      }
      meter.countRequest();
    }
    const started = Date.now();
    const base = {
      index: exchanges.length,
      method: request.method ?? "GET",
      path: stripKeyParam(path),
      protocol,
      model,
      request_body: recordedBody(body, parsed, secrets),
    };
    if (options.replay !== undefined) {
      const answer = options.replay.answer(base);
      if ("divergence" in answer) {
        if (divergence === null) {
          divergence = answer.divergence;
          options.onDivergence?.(divergence);
        }
        return refuse(response, protocol, `evalgate replay diverged at ${answer.divergence.field}`);
      }
      response.writeHead(answer.status, { "content-type": answer.content_type }).end(answer.response_body);
      if (protocol !== null) meter.add(model, answer.usage);
      exchanges.push({ ...answer, ...base, duration_ms: Date.now() - started });
      return;
    }
    const result = await forwardUpstream({
      upstream: options.upstream,
      localPrefix: options.localPrefix,
      request,
      body,
      protocol,
      response,
      secrets,
    }).catch((error: unknown) => {
      if (error instanceof UpstreamUnreachable && unreachable === null) {
        unreachable = { host: error.host, error_code: error.errorCode, request: base.index + 1 };
        options.onUnreachable?.(unreachable);
      }
      throw error;
    });
    if (protocol !== null) {
      const cost = meter.add(model, result.usage);
      if (options.ledger !== undefined && cost !== null) options.ledger.spentUsd += cost;
    }
    exchanges.push({
      ...base,
      status: result.status,
      content_type: result.contentType,
      response_body: scrub(result.body, secrets),
      usage: result.usage,
      duration_ms: Date.now() - started,
    });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        refuse(response, protocolOfPath(request.url ?? "/"), `evalgate bridge: ${(error as Error).message}`, 502);
      else response.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  rmSync(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.socketPath, () => resolve());
  });
  return {
    socketPath: options.socketPath,
    figures: () => meter.figures(),
    exchanges: () => exchanges,
    budgetStop: () => stop,
    divergence: () => divergence,
    unreachable: () => unreachable,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          rmSync(options.socketPath, { force: true });
          resolve();
        });
      }),
  };
}

function carriesKey(request: IncomingMessage, key: string): boolean {
  for (const name of CLIENT_KEY_HEADERS) {
    const value = request.headers[name];
    if (typeof value === "string" && (value === key || value === `Bearer ${key}`)) return true;
  }
  return new URL(request.url ?? "/", "http://bridge").searchParams.get("key") === key;
}

/** The whole request body, or null as soon as it passes `maxBytes` (the rest is never read). */
async function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return null;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
}

/** The path without a `key=` query parameter (Gemini clients may send their key there). */
export function stripKeyParam(path: string): string {
  const url = new URL(path, "http://bridge");
  url.searchParams.delete("key");
  return url.pathname + url.search;
}

/** `text` with every secret replaced. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join("[REDACTED]");
  return out;
}

/** The request body as recorded: its JSON when it holds no secret (the common case, no copy), else scrubbed. */
function recordedBody(body: Buffer, parsed: unknown, secrets: readonly string[]): unknown {
  const holdsSecret = secrets.some((secret) => secret.length >= 8 && body.includes(secret));
  if (parsed === null) return scrub(body.toString("utf8"), secrets);
  return holdsSecret ? (JSON.parse(scrub(body.toString("utf8"), secrets)) as unknown) : parsed;
}
