import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { TokenUsage, WireProtocol } from "./protocols.ts";
import { CLIENT_KEY_HEADERS, upstreamKeyHeader, ZERO_USAGE } from "./protocols.ts";
import { UsageReader } from "./usage-reader.ts";

/** Where model calls go: the provider's API, any compatible base URL, or a scripted endpoint. */
export interface Upstream {
  /** e.g. `https://api.anthropic.com`, `https://api.openai.com/v1`, `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string;
  /** The real key, sent in the protocol's header; null sends none (a local model server, a scripted endpoint). */
  readonly apiKey: string | null;
}

/** A recorded response body larger than this is cut (and says so); the agent still gets all of it. */
const MAX_RECORDED_BYTES = 16 * 1024 * 1024;
// Connections to the upstream are kept alive and reused across the bridges of a run, as a CLI's own client would.
const HTTP_AGENT = new HttpAgent({ keepAlive: true });
const HTTPS_AGENT = new HttpsAgent({ keepAlive: true });
const HOP_BY_HOP = new Set([
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "content-length",
  "accept-encoding",
  ...CLIENT_KEY_HEADERS,
]);

/** Errors that mean no connection to the upstream was ever made: refused, no such host, no route, connect timed out. */
const CONNECT_FAILURES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
]);

/**
 * The upstream could not be connected to (the request never left the host): the model endpoint's fault, not the
 * agent's. Names the endpoint's host and the system's error code, never a key or a path.
 */
export class UpstreamUnreachable extends Error {
  override readonly name = "UpstreamUnreachable";
  readonly host: string;
  readonly errorCode: string;
  constructor(host: string, errorCode: string) {
    super(`the model endpoint ${host} is unreachable (${errorCode})`);
    this.host = host;
    this.errorCode = errorCode;
  }
}

export interface ForwardResult {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly usage: TokenUsage;
}

/** The upstream URL of a request path the CLI sent to its local base URL (`localPrefix` removed). */
export function upstreamUrl(upstream: Upstream, localPrefix: string, path: string): URL {
  const url = new URL(path, "http://bridge");
  url.searchParams.delete("key");
  const rest =
    localPrefix !== "" && url.pathname.startsWith(localPrefix) ? url.pathname.slice(localPrefix.length) : url.pathname;
  const base = upstream.baseUrl.replace(/\/+$/, "");
  return new URL(`${base}${rest.startsWith("/") ? rest : `/${rest}`}${url.search}`);
}

function forwardedHeaders(
  headers: IncomingHttpHeaders,
  upstream: Upstream,
  protocol: WireProtocol | null,
  length: number,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  // Identity encoding: the usage is read from the bytes as they pass.
  out["accept-encoding"] = "identity";
  out["content-length"] = String(length);
  return upstream.apiKey === null ? out : { ...out, ...upstreamKeyHeader(protocol, upstream.apiKey) };
}

/**
 * Sends one request upstream and streams the answer back to the client chunk by chunk while reading its
 * usage and keeping a copy (capped) for the record. Secrets are cut out of what the client receives.
 */
export function forwardUpstream(options: {
  readonly upstream: Upstream;
  readonly localPrefix: string;
  readonly request: IncomingMessage;
  readonly body: Buffer;
  readonly protocol: WireProtocol | null;
  readonly response: ServerResponse;
  readonly secrets: readonly string[];
}): Promise<ForwardResult> {
  const { upstream, request, body, protocol, response } = options;
  const target = upstreamUrl(upstream, options.localPrefix, request.url ?? "/");
  const secure = target.protocol === "https:";
  const send = secure ? httpsRequest : httpRequest;
  return new Promise<ForwardResult>((resolve, reject) => {
    const outgoing = send(
      target,
      {
        agent: secure ? HTTPS_AGENT : HTTP_AGENT,
        method: request.method ?? "GET",
        headers: forwardedHeaders(request.headers, upstream, protocol, body.length),
      },
      (incoming) => {
        const contentType = String(incoming.headers["content-type"] ?? "");
        const reader = protocol === null ? null : new UsageReader(protocol, contentType);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name))
            headers[name] = Array.isArray(value) ? value.join(", ") : value;
        }
        response.writeHead(incoming.statusCode ?? 502, headers);
        const kept: Buffer[] = [];
        let keptBytes = 0;
        incoming.on("data", (chunk: Buffer) => {
          reader?.push(chunk);
          if (keptBytes < MAX_RECORDED_BYTES) kept.push(chunk);
          keptBytes += chunk.length;
          response.write(scrubChunk(chunk, options.secrets));
        });
        incoming.on("end", () => {
          response.end();
          const text = Buffer.concat(kept).toString("utf8");
          resolve({
            status: incoming.statusCode ?? 502,
            contentType,
            body:
              keptBytes > MAX_RECORDED_BYTES
                ? `${text}\n[evalgate: response cut at ${MAX_RECORDED_BYTES} of ${keptBytes} bytes]`
                : text,
            usage: reader?.end() ?? ZERO_USAGE,
          });
        });
        incoming.on("error", reject);
      },
    );
    // Only an error before the TCP connection was made is unreachability; a reset or timeout later is the exchange failing.
    let connected = false;
    outgoing.on("socket", (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once("connect", () => (connected = true));
    });
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      const code = error.code ?? "";
      reject(!connected && CONNECT_FAILURES.has(code) ? new UpstreamUnreachable(target.host, code) : error);
    });
    // The client went away: stop the upstream call too.
    response.on("close", () => {
      if (!response.writableFinished) outgoing.destroy();
    });
    outgoing.end(body);
  });
}

function scrubChunk(chunk: Buffer, secrets: readonly string[]): Buffer {
  for (const secret of secrets)
    if (secret.length >= 8 && chunk.includes(secret))
      return Buffer.from(chunk.toString("utf8").split(secret).join("[REDACTED]"));
  return chunk;
}
