// The wire checks in runtime.ts are generated from @eval/models' zod schemas: a schema change without
// `pnpm schemas` fails here, and a schema the generator cannot translate fails by name.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const script = join(dirname(fileURLToPath(import.meta.url)), "..", "scripts", "generate-wire-checks.ts");

describe("the generated wire checks", () => {
  it("match what the generator writes from the zod schemas today", () => {
    expect(() =>
      execFileSync(process.execPath, ["--conditions=@eval/source", script, "--check"], { stdio: "pipe" }),
    ).not.toThrow();
  });
});
