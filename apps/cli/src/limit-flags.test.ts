import { describe, expect, it } from "vitest";
import { sutLimitOverrides } from "./limit-flags.ts";

const none = { pids: undefined, memory: undefined, disk: undefined };

describe("--sut-pids, --sut-memory, --sut-disk", () => {
  it("give what is set, in processes and bytes", () => {
    expect(sutLimitOverrides(none)).toEqual({});
    expect(sutLimitOverrides({ pids: "4096", memory: "8GiB", disk: "512 MiB" })).toEqual({
      pids: 4096,
      memory: 8 * 1024 ** 3,
      disk: 512 * 1024 ** 2,
    });
    expect(sutLimitOverrides({ ...none, disk: "1048576" })).toEqual({ disk: 1024 ** 2 });
  });

  it("refuse a value that is not a size or out of bounds, in one EVAL_USAGE line naming flag, bounds and value", () => {
    for (const memory of ["0", "lots", "1.5GiB", "4GB", "", "2TiB", "63MiB"])
      expect(() => sutLimitOverrides({ ...none, memory })).toThrow(
        expect.objectContaining({
          code: "EVAL_USAGE",
          message: `--sut-memory must be a size between 64 MiB and 1 TiB in whole KiB, MiB, GiB or TiB (e.g. 4GiB), got "${memory}"`,
        }),
      );
    expect(() => sutLimitOverrides({ ...none, disk: "-1" })).toThrow(/^--sut-disk must be a size between 1 MiB/);
    for (const pids of ["0", "15", "65537", "2.5", "many"])
      expect(() => sutLimitOverrides({ ...none, pids })).toThrow(
        `--sut-pids must be a whole number of processes between 16 and 65536, got "${pids}"`,
      );
  });
});
