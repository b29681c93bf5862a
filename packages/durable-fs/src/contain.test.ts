import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { isInside } from "./contain.ts";

describe("isInside", () => {
  it.each([
    ["/state", "/state", true],
    ["/state", "/state/runs/x.json", true],
    ["/state", "/state/..key", true],
    ["/state", "/state/sub/../..hidden", true],
    ["/state/", "/state/a", true],
    ["/state", "/state/../state/a", true],
    ["/state", "/stateful/a", false],
    ["/state", "/state/../other", false],
    ["/state", "/", false],
    ["/state/runs", "/state", false],
  ])("isInside(%s, %s) is %s", (root, path, inside) => {
    expect(isInside(root, path)).toBe(inside);
  });

  it("resolves relative paths against the working directory", () => {
    expect(isInside(".", join("a", "b"))).toBe(true);
    expect(isInside("a", `..${sep}b`)).toBe(false);
  });
});
