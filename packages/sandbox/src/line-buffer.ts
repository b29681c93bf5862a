/**
 * Splits a byte stream into lines across arbitrary chunk boundaries: a JSON document split over two
 * writes (or a multi-byte character split over two chunks) is reassembled before anyone parses it.
 */
export class LineBuffer {
  readonly #decoder = new TextDecoder("utf-8");
  #pending = "";

  /** Feeds one chunk; returns the complete lines it finished (without their `\n` or `\r\n`). */
  push(chunk: Uint8Array | string): string[] {
    this.#pending += typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
    const parts = this.#pending.split("\n");
    this.#pending = parts.pop() ?? "";
    return parts.map(stripCarriageReturn);
  }

  /** Flushes what is left: the last line when the stream did not end with a newline (possibly cut). */
  end(): string | null {
    this.#pending += this.#decoder.decode();
    const rest = this.#pending;
    this.#pending = "";
    return rest === "" ? null : stripCarriageReturn(rest);
  }
}

function stripCarriageReturn(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
