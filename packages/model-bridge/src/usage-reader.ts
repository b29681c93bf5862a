import type { TokenUsage, WireProtocol } from "./protocols.ts";
import { mergeUsage, ZERO_USAGE } from "./protocols.ts";

/** A JSON (not streamed) body larger than this is forwarded but not metered (its usage reads as zero). */
const MAX_JSON_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Reads the usage figures out of one response as its bytes pass through: server-sent events line by line
 * (each `data:` object), or a whole JSON body (an object, or Gemini's array of chunks) at its end.
 */
export class UsageReader {
  readonly #protocol: WireProtocol;
  readonly #streamed: boolean;
  readonly #decoder = new TextDecoder();
  #pending = "";
  #body: Buffer[] = [];
  #bodyBytes = 0;
  #usage: TokenUsage = ZERO_USAGE;

  constructor(protocol: WireProtocol, contentType: string | undefined) {
    this.#protocol = protocol;
    this.#streamed = (contentType ?? "").includes("text/event-stream");
  }

  push(chunk: Buffer): void {
    if (!this.#streamed) {
      this.#bodyBytes += chunk.length;
      if (this.#bodyBytes <= MAX_JSON_BODY_BYTES) this.#body.push(chunk);
      return;
    }
    this.#pending += this.#decoder.decode(chunk, { stream: true });
    let newline = this.#pending.indexOf("\n");
    while (newline >= 0) {
      this.#line(this.#pending.slice(0, newline));
      this.#pending = this.#pending.slice(newline + 1);
      newline = this.#pending.indexOf("\n");
    }
  }

  /** The response's usage, once all of it has passed. */
  end(): TokenUsage {
    if (this.#streamed) {
      this.#line(this.#pending + this.#decoder.decode());
      this.#pending = "";
    } else if (this.#bodyBytes <= MAX_JSON_BODY_BYTES) {
      const parsed = parseJson(Buffer.concat(this.#body).toString("utf8"));
      for (const item of Array.isArray(parsed) ? parsed : [parsed])
        this.#usage = mergeUsage(this.#protocol, item, this.#usage);
      this.#body = [];
    }
    return this.#usage;
  }

  #line(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (!line.startsWith("data:")) return;
    const data = line.slice(5).trim();
    if (data === "" || data === "[DONE]") return;
    this.#usage = mergeUsage(this.#protocol, parseJson(data), this.#usage);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
