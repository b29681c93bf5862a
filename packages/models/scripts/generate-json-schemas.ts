// Writes packages/models/schemas/<name>.schema.json from the zod schemas (run: `pnpm schemas`).
// `--check` writes nothing and exits 1 naming every file that differs (what the drift test runs).
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { allJsonSchemas } from "../src/json-schema.ts";

const schemasDir = join(dirname(fileURLToPath(import.meta.url)), "..", "schemas");
const check = process.argv.includes("--check");
const expected = new Map(
  Object.entries(allJsonSchemas()).map(([name, schema]) => [
    `${name}.schema.json`,
    `${JSON.stringify(schema, null, 2)}\n`,
  ]),
);

const drifted: string[] = [];
mkdirSync(schemasDir, { recursive: true });
for (const [file, text] of expected) {
  let current: string | undefined;
  try {
    current = readFileSync(join(schemasDir, file), "utf8");
  } catch {
    current = undefined;
  }
  if (current === text) continue;
  drifted.push(file);
  if (!check) writeFileSync(join(schemasDir, file), text);
}
const stale = readdirSync(schemasDir).filter((file) => !expected.has(file));
if (check && (drifted.length > 0 || stale.length > 0)) {
  console.error(
    `JSON Schemas drifted from the zod schemas: ${[...drifted, ...stale].join(", ")}; run \`pnpm schemas\` and commit the result`,
  );
  process.exit(1);
}
if (!check) console.error(`wrote ${drifted.length} of ${expected.size} schema files to ${schemasDir}`);
