// Load-bearing: no field of any wire type may invite an LLM's judgment into the evidence.
import { describe, expect, it } from "vitest";
import { allJsonSchemas, WIRE_SCHEMAS } from "./index.ts";

const BANNED = /confidence|llm|self_reported|model_says/i;

/** Every property name anywhere in a JSON Schema, with its path. */
function propertyNames(node: unknown, path: string, out: Array<[string, string]>): void {
  if (Array.isArray(node)) {
    node.forEach((child, index) => propertyNames(child, `${path}[${index}]`, out));
    return;
  }
  if (node === null || typeof node !== "object") return;
  for (const [key, child] of Object.entries(node)) {
    if (key === "properties" && child !== null && typeof child === "object") {
      for (const name of Object.keys(child)) out.push([name, `${path}.properties.${name}`]);
    }
    propertyNames(child, `${path}.${key}`, out);
  }
}

describe("the banned-key static check", () => {
  const schemas = allJsonSchemas();

  it("covers every wire schema", () => {
    expect(Object.keys(schemas).sort()).toEqual(Object.keys(WIRE_SCHEMAS).sort());
  });

  it.each(Object.keys(schemas))("%s has no field named like confidence|llm|self_reported|model_says", (name) => {
    const names: Array<[string, string]> = [];
    propertyNames(schemas[name], name, names);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter(([field]) => BANNED.test(field))).toEqual([]);
  });

  it("would catch a smuggled field (the walk sees nested properties)", () => {
    const names: Array<[string, string]> = [];
    propertyNames({ properties: { a: { items: { properties: { llm_confidence: {} } } } } }, "x", names);
    expect(names.filter(([field]) => BANNED.test(field))).toEqual([
      ["llm_confidence", "x.properties.a.items.properties.llm_confidence"],
    ]);
  });
});
