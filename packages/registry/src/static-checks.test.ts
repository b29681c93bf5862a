import { describe, expect, it } from "vitest";
import { registrationLiteralName, staticBreakdownKeys } from "./static-checks.ts";

const header = 'import { registerTaskClass } from "@eval/registry";\n';

describe("registrationLiteralName (fence assertion 4)", () => {
  it.each([
    ['export default registerTaskClass("a-b", { min_cases_for_promotion: {} });', "a-b"],
    ['export default registerTaskClass("a-b", { min_cases_for_promotion: {} } satisfies object) as const;', "a-b"],
  ])("accepts %s", (body, name) => {
    expect(registrationLiteralName(header + body)).toEqual({ ok: true, value: name });
  });

  it("follows an aliased import", () => {
    expect(
      registrationLiteralName(
        'import { registerTaskClass as reg } from "@eval/registry";\nexport default reg("x", { min_cases_for_promotion: {} });',
      ),
    ).toEqual({ ok: true, value: "x" });
  });

  it.each([
    ['const NAME = "a";\nexport default registerTaskClass(NAME, {});', /string literal/],
    ["export default registerTaskClass(`a`, {});", /string literal/],
    ['export default registerTaskClass("a" + "b", {});', /string literal/],
    ["export default registerTaskClass();", /string literal/],
    ['const r = registerTaskClass("a", {});\nexport default r;', /export default registerTaskClass/],
    ['registerTaskClass("a", {});\nexport default registerTaskClass("b", {});', /exactly once \(found 2\)/],
    ["export default 1;", /exactly once \(found 0\)/],
    ["export default (", /does not parse/],
  ])("rejects %j", (body, reason) => {
    const result = registrationLiteralName(header + body);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it("requires the import from @eval/registry", () => {
    expect(registrationLiteralName('export default registerTaskClass("a", {});')).toMatchObject({
      ok: false,
      reason: expect.stringContaining("does not import"),
    });
  });
});

describe("staticBreakdownKeys (fence assertion 5)", () => {
  it("reads a literal array with comments and as const", () => {
    expect(
      staticBreakdownKeys(
        '/** doc */\nexport const BREAKDOWN_KEYS = [\n  // why\n  "a_b",\n  "c",\n] as const;\nexport const OTHER = 1;',
      ),
    ).toEqual({ ok: true, value: ["a_b", "c"] });
  });

  it.each([
    ['export const BREAKDOWN_KEYS = ["a", ...more] as const;', /string literal/],
    ['export const BREAKDOWN_KEYS = ["a", `b`] as const;', /string literal/],
    ["export const BREAKDOWN_KEYS = makeKeys();", /array literal/],
    ['export let BREAKDOWN_KEYS = ["a"];', /const/],
    ['const BREAKDOWN_KEYS = ["a"];', /must export const BREAKDOWN_KEYS/],
    ["export const BREAKDOWN_KEYS = [", /does not parse/],
  ])("rejects %j", (source, reason) => {
    const result = staticBreakdownKeys(source);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });
});
