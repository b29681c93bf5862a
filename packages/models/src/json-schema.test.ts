import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { allJsonSchemas } from "./index.ts";

const script = join(dirname(fileURLToPath(import.meta.url)), "..", "scripts", "generate-json-schemas.ts");

describe("committed JSON Schemas", () => {
  it("match the zod schemas (run `pnpm schemas` after changing a schema)", () => {
    expect(() => execFileSync(process.execPath, [script, "--check"], { stdio: "pipe" })).not.toThrow();
  });

  it("are closed: every object schema forbids unknown keys, except the harness output", () => {
    const open: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (node === null || typeof node !== "object") return;
      const record = node as Record<string, unknown>;
      if (record.type === "object" && record.properties !== undefined && record.additionalProperties !== false)
        open.push(path);
      for (const [key, child] of Object.entries(record)) walk(child, `${path}.${key}`);
    };
    for (const [name, schema] of Object.entries(allJsonSchemas())) walk(schema, name);
    expect(open.filter((path) => !path.includes("harness_output") && !path.startsWith("harness-output"))).toEqual([]);
  });
});
