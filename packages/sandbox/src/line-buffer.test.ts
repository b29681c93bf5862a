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
});
