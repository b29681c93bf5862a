import { describe, expect, it } from "vitest";
import { DENIED_SYSCALLS, seccompFilter } from "./seccomp.ts";

/** The program as [code, jt, jf, k] instructions. */
function decode(bytes: Buffer): Array<[number, number, number, number]> {
  return Array.from({ length: bytes.length / 8 }, (_, index) => [
    bytes.readUInt16LE(index * 8),
    bytes.readUInt8(index * 8 + 2),
    bytes.readUInt8(index * 8 + 3),
    bytes.readUInt32LE(index * 8 + 4),
  ]);
}

describe("seccompFilter", () => {
  it("x86_64: checks the architecture, denies x32 and every listed call, allows the rest", () => {
    const program = decode(seccompFilter("x64")!);
    expect(program[1]).toEqual([0x15, 1, 0, 0xc000003e]);
    expect(program[2]).toEqual([0x06, 0, 0, 0x80000000]);
    expect(program[4]).toEqual([0x35, DENIED_SYSCALLS.length + 1, 0, 0x40000000]);
    // Every JEQ on a number jumps to the last instruction but one: EPERM.
    const checks = program.slice(5, 5 + DENIED_SYSCALLS.length);
    checks.forEach(([code, jt], index) => {
      expect(code).toBe(0x15);
      expect(5 + index + 1 + jt).toBe(program.length - 1);
    });
    expect(checks.map(([, , , nr]) => nr)).toContain(250);
    expect(program.at(-2)).toEqual([0x06, 0, 0, 0x7fff0000]);
    expect(program.at(-1)).toEqual([0x06, 0, 0, 0x00050001]);
  });

  it("arm64: its own architecture and numbers, no x32 check", () => {
    const program = decode(seccompFilter("arm64")!);
    expect(program[1]).toEqual([0x15, 1, 0, 0xc00000b7]);
    expect(program).toHaveLength(4 + DENIED_SYSCALLS.length + 2);
    expect(program.slice(4, 4 + DENIED_SYSCALLS.length).map(([, , , nr]) => nr)).toContain(219);
  });

  it("no filter for an architecture without a table (the sandbox then says it is unavailable)", () => {
    expect(seccompFilter("mips")).toBeNull();
  });
});
