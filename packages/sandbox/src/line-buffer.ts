import { StringDecoder } from "node:string_decoder";

/**
 * Splits a byte stream into lines across arbitrary chunk boundaries: a JSON document split over two
 * writes (or a multi-byte character split over two chunks) is reassembled before anyone parses it.
 * Linear in the bytes fed: each chunk is scanned once, and an unfinished line is kept as its pieces
 * (re-splitting the whole pending line on every chunk made a 1 GB line without a newline quadratic:
 * 8 MiB took 13 s of harness CPU).
 */
export class LineBuffer {
  readonly #decoder = new StringDecoder("utf8");
  /** The unfinished line (a concatenation V8 keeps as a rope until the line ends). */
  #pending = "";

  /** Feeds one chunk; returns the complete lines it finished (without their `\n` or `\r\n`). */
  push(chunk: Uint8Array | string): string[] {
    const text = typeof chunk === "string" ? chunk : this.#decoder.write(chunk);
    const parts = text.split("\n");
    const last = parts.pop()!;
    if (parts.length > 0) {
      parts[0] = this.#pending + parts[0];
      this.#pending = "";
    }
    this.#pending += last;
    return parts.map(stripCarriageReturn);
  }

  /** Flushes what is left: the last line when the stream did not end with a newline (possibly cut). */
  end(): string | null {
    const rest = this.#pending + this.#decoder.end();
    this.#pending = "";
    return rest === "" ? null : stripCarriageReturn(rest);
  }
}

function stripCarriageReturn(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
