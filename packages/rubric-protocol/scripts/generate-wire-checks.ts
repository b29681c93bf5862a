// Writes the wire checks of src/runtime.ts (between its GENERATED markers) from @eval/models' zod
// schemas, RubricRequestSchema and BenchScoreSchema: run by `pnpm schemas`, beside the JSON Schemas.
// `--check` writes nothing and exits 1 when the file differs (what the drift test runs).
//
// The checks are code, not a schema interpreter, because a rubric is a fresh process per case: they load
// no zod, and as parenthesised function expressions they land in the rubric's compile cache. They answer
// the parsed value (keys in the schema's order, defaults filled in, -0 as 0) or `undefined`, and are
// never looser than the schema: what the generator cannot translate (an unknown refinement or transform,
// a zod type it does not know) stops it with one line naming the place, rather than being skipped.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BenchScoreSchema, RubricRequestSchema } from "@eval/models";

/** The part of zod's internal definition the generator reads (zod 4's `schema._zod.def`). */
interface Def {
  readonly type: string;
  readonly shape?: Record<string, Schema>;
  readonly catchall?: Schema;
  readonly checks?: readonly { readonly _zod: { readonly def: CheckDef } }[];
  readonly innerType?: Schema;
  readonly defaultValue?: unknown;
  readonly in?: Schema;
  readonly out?: Schema;
  readonly transform?: { readonly name: string };
  readonly element?: Schema;
  readonly keyType?: Schema;
  readonly valueType?: Schema;
  readonly values?: readonly unknown[];
  readonly entries?: Record<string, unknown>;
  readonly pattern?: RegExp;
}
interface CheckDef {
  readonly check: string;
  readonly value?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly inclusive?: boolean;
  readonly format?: string;
  readonly pattern?: RegExp;
}
interface Schema {
  readonly _zod: { readonly def: Def };
}

/**
 * The object schemas carrying a refinement (zod's `superRefine`, opaque to a generator), and the same
 * rule as a condition on the parsed fields. wire-checks.test.ts holds each to its schema on generated values.
 */
const REFINEMENTS: Readonly<Record<string, string>> = {
  // BenchCaseSchema's commitShaMatchesSource: commit_sha is null exactly when the case is curated.
  "RubricRequest.case": `(parsed.source === "curated") === (parsed.commit_sha === null)`,
};

/** The transforms the checks know, by the function's name in @eval/models. */
const TRANSFORMS: Readonly<Record<string, string>> = { withoutNegativeZero: "withoutNegativeZero" };

const def = (schema: Schema): Def => schema._zod.def;

/** One generated function per object, array and record schema, named after its path (inner ones first). */
const functions: string[] = [];
/** The key sets of strict objects. */
const constants: string[] = [];

function fail(path: string, why: string): never {
  throw new Error(
    `generate-wire-checks: ${path}: ${why}; teach the generator, or keep the schema within what it translates`,
  );
}

/** A condition on `v` that holds when `v` passes the checks of a string, number or boolean schema. */
function leafCondition(schema: Schema, path: string): string {
  const d = def(schema);
  const parts: string[] = [];
  if (d.type === "string") {
    parts.push(`typeof v === "string"`);
    if (d.pattern !== undefined) parts.push(`${d.pattern}.test(v)`);
  } else if (d.type === "number") {
    parts.push(`typeof v === "number" && Number.isFinite(v)`);
  } else if (d.type === "boolean") {
    parts.push(`typeof v === "boolean"`);
  } else if (d.type === "literal") {
    parts.push(d.values!.map((value) => `v === ${JSON.stringify(value)}`).join(" || "));
  } else if (d.type === "enum") {
    parts.push(
      Object.values(d.entries!)
        .map((value) => `v === ${JSON.stringify(value)}`)
        .join(" || "),
    );
  } else {
    fail(path, `zod type "${d.type}" is not translated`);
  }
  for (const { _zod } of d.checks ?? []) parts.push(checkCondition(_zod.def, path));
  return parts.map((part) => `(${part})`).join(" && ");
}

function checkCondition(check: CheckDef, path: string): string {
  switch (check.check) {
    case "min_length":
      return `v.length >= ${check.minimum}`;
    case "max_length":
      return `v.length <= ${check.maximum}`;
    case "string_format":
      if (check.pattern === undefined) fail(path, `string format "${check.format}" has no pattern`);
      return `${check.pattern}.test(v)`;
    case "greater_than":
      return `v ${check.inclusive ? ">=" : ">"} ${check.value}`;
    case "less_than":
      return `v ${check.inclusive ? "<=" : "<"} ${check.value}`;
    case "number_format":
      if (check.format !== "safeint") fail(path, `number format "${check.format}" is not translated`);
      return "Number.isSafeInteger(v)";
    default:
      return fail(path, `check "${check.check}" is not translated`);
  }
}

/**
 * An expression of `v` that is the parsed value, or `undefined` when `v` is not shown valid (no JSON value
 * parses to `undefined`). Leaves stay inline; objects, arrays and records become their own function.
 */
function parsedExpression(schema: Schema, path: string): string {
  const d = def(schema);
  switch (d.type) {
    case "nullable":
      return `(v === null ? null : ${parsedExpression(d.innerType!, path)})`;
    case "pipe": {
      const transform = def(d.out!).transform?.name;
      if (def(d.out!).type !== "transform" || transform === undefined || TRANSFORMS[transform] === undefined)
        fail(path, `transform "${transform}" is not known`);
      return `(${leafCondition(d.in!, path)} ? ${TRANSFORMS[transform]}(v as number) : undefined)`;
    }
    case "object":
      return `${objectFunction(schema, path)}(v)`;
    case "array":
      return `${listFunction(schema, path)}(v)`;
    case "record":
      return `${recordFunction(schema, path)}(v)`;
    default:
      return `(${leafCondition(schema, path)} ? v : undefined)`;
  }
}

function functionName(path: string): string {
  return `parse${path.replaceAll(/[^A-Za-z0-9]+(.)?/g, (_match, next: string | undefined) => (next ?? "").toUpperCase())}`;
}

/** The statements that parse one field of an object into `parsed` (or return undefined). */
function fieldStatement(key: string, schema: Schema, path: string): string {
  const d = def(schema);
  const read = JSON.stringify(key);
  if (d.type !== "optional" && d.type !== "default") {
    return `  v = value[${read}];\n  if ((parsed[${read}] = ${parsedExpression(schema, path)}) === undefined) return undefined;`;
  }
  // Absent, an optional field stays absent; absent or undefined, a defaulted one takes its default (as
  // zod does). An optional field present as `undefined` (not JSON) is left to the full schema.
  const absent =
    d.type === "default"
      ? `v === undefined) parsed[${read}] = ${JSON.stringify(d.defaultValue)};`
      : `!Object.hasOwn(value, ${read})) {}`;
  return [
    `  v = value[${read}];`,
    `  if (${absent}`,
    `  else if ((parsed[${read}] = ${parsedExpression(d.innerType!, path)}) === undefined) return undefined;`,
  ].join("\n");
}

function objectFunction(schema: Schema, path: string): string {
  const d = def(schema);
  const name = functionName(path);
  const keys = Object.keys(d.shape!);
  const catchall = d.catchall === undefined ? "strip" : def(d.catchall).type;
  if (catchall !== "never" && catchall !== "unknown")
    fail(path, `an object whose unknown keys are "${catchall}" is not translated`);
  const refinements = (d.checks ?? []).filter(({ _zod }) => _zod.def.check === "custom");
  const refinement =
    refinements.length === 0 ? null : (REFINEMENTS[path] ?? fail(path, "a refinement the generator does not know"));
  const keySet = `${name.replace(/^parse/, "keysOf")}`;
  if (catchall === "never") constants.push(`const ${keySet}: ReadonlySet<string> = new Set(${JSON.stringify(keys)});`);
  const body = [
    `const ${name} = (function ${name}(value: unknown): Fields | undefined {`,
    `  if (!plainObject(value)) return undefined;`,
    catchall === "never" ? `  for (const key of Object.keys(value)) if (!${keySet}.has(key)) return undefined;` : "",
    `  const parsed: Fields = {};`,
    `  let v: unknown;`,
    ...keys.map((key) => fieldStatement(key, d.shape![key]!, `${path}.${key}`)),
    catchall === "unknown"
      ? `  for (const key of Object.keys(value)) if (!Object.hasOwn(parsed, key)) parsed[key] = value[key];`
      : "",
    refinement === null ? "" : `  if (!(${refinement})) return undefined;`,
    `  return parsed;`,
    `});`,
  ];
  functions.push(body.filter((line) => line !== "").join("\n"));
  return name;
}

function listFunction(schema: Schema, path: string): string {
  const name = functionName(path);
  const item = parsedExpression(def(schema).element!, `${path}.item`);
  functions.push(
    [
      `const ${name} = (function ${name}(value: unknown): unknown[] | undefined {`,
      `  if (!Array.isArray(value)) return undefined;`,
      `  const parsed: unknown[] = [];`,
      `  for (let index = 0; index < value.length; index += 1) {`,
      `    const v: unknown = value[index];`,
      `    const item = ${item};`,
      `    if (item === undefined) return undefined;`,
      `    parsed.push(item);`,
      `  }`,
      `  return parsed;`,
      `});`,
    ].join("\n"),
  );
  return name;
}

function recordFunction(schema: Schema, path: string): string {
  const d = def(schema);
  const name = functionName(path);
  const keyCondition = leafCondition(d.keyType!, `${path}{key}`);
  const entry = parsedExpression(d.valueType!, `${path}{}`);
  functions.push(
    [
      `const ${name} = (function ${name}(value: unknown): Fields | undefined {`,
      `  if (!plainObject(value)) return undefined;`,
      `  const parsed: Fields = {};`,
      `  for (const key of Object.keys(value)) {`,
      `    let v: unknown = key;`,
      `    if (!(${keyCondition})) return undefined;`,
      `    v = value[key];`,
      `    if ((parsed[key] = ${entry}) === undefined) return undefined;`,
      `  }`,
      `  return parsed;`,
      `});`,
    ].join("\n"),
  );
  return name;
}

const START = "// ---- GENERATED by scripts/generate-wire-checks.ts from @eval/models' zod schemas: do not edit ----";
const END = "// ---- END GENERATED ----";

/** The generated region for the two documents a rubric reads and writes. */
export function generatedRegion(): string {
  functions.length = 0;
  constants.length = 0;
  const roots = [
    ["RubricRequest", RubricRequestSchema],
    ["BenchScore", BenchScoreSchema],
  ] as const;
  for (const [name, schema] of roots) objectFunction(schema as unknown as Schema, name);
  return `${START}\n${constants.join("\n")}\n\n${functions.join("\n\n")}\n${END}`;
}

const runtimePath = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "runtime.ts");

if (import.meta.main) {
  const current = readFileSync(runtimePath, "utf8");
  const [start, end] = [current.indexOf(START), current.indexOf(END)];
  if (start < 0 || end < 0) throw new Error(`generate-wire-checks: ${runtimePath} has no GENERATED markers`);
  const next = `${current.slice(0, start)}${generatedRegion()}${current.slice(end + END.length)}`;
  if (process.argv.includes("--check")) {
    if (next !== current) {
      console.error(
        "the wire checks in packages/rubric-protocol/src/runtime.ts drifted from the zod schemas; run `pnpm schemas` and commit the result",
      );
      process.exit(1);
    }
  } else if (next !== current) {
    writeFileSync(runtimePath, next);
    console.error(`wrote the wire checks in ${runtimePath}`);
  }
}
