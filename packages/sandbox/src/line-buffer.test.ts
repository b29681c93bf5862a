import { describe, expect, it } from "vitest";
import { LineBuffer } from "./line-buffer.ts";

describe("LineBuffer", () => {
  it("reassembles lines split across chunks, including a split multi-byte character", () => {
    const buffer = new LineBuffer();
    const bytes = Buffer.from('{"a":"é"}\r\n{"b":2}\n{"c"');
    expect(buffer.push(bytes.subarray(0, 8))).toEqual([]);
    expect(buffer.push(bytes.subarray(8, 15))).toEqual(['{"a":"é"}']);
    expect(buffer.push(bytes.subarray(15))).toEqual(['{"b":2}']);
    expect(buffer.push(":3}")).toEqual([]);
    expect(buffer.end()).toBe('{"c":3}');
    expect(buffer.end()).toBeNull();
  });

  it("a line spread over many chunks, and several lines in one chunk, come out whole and in order", () => {
    const buffer = new LineBuffer();
    expect(buffer.push("ab")).toEqual([]);
    expect(buffer.push("")).toEqual([]);
    expect(buffer.push("cd")).toEqual([]);
    expect(buffer.push("e\nf\n\ng")).toEqual(["abcde", "f", ""]);
    expect(buffer.push("\n")).toEqual(["g"]);
    expect(buffer.end()).toBeNull();
  });

  it("is linear in the bytes fed: 16 MiB without a newline in 4 KiB chunks takes well under seconds", () => {
    // Re-splitting the pending line on every chunk made this quadratic (about 32 G characters scanned here,
    // minutes), which let a rubric printing without newlines reach its deadline before its output cap.
    const buffer = new LineBuffer();
    const chunk = Buffer.alloc(4096, 0x78);
    const started = performance.now();
    let lines = 0;
    for (let i = 0; i < 4096; i++) lines += buffer.push(chunk).length;
    expect(lines).toBe(0);
    expect(buffer.push("\n")[0]).toHaveLength(16 * 1024 * 1024);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
