import { parse } from "@babel/parser";

// Source-level checks the fence runs without executing bench code (fence assertions 4 and 5).
// The AST is read through this minimal shape so only the fields used here are relied on.
interface Node {
  readonly type: string;
  readonly [field: string]: unknown;
}

function parseModule(source: string): Node {
  return parse(source, { sourceType: "module", plugins: ["typescript"] }).program as unknown as Node;
}

function children(node: Node): Node[] {
  const result: Node[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "loc" || key === "start" || key === "end" || key === "extra") continue;
    for (const candidate of Array.isArray(value) ? value : [value]) {
      if (candidate !== null && typeof candidate === "object" && typeof (candidate as Node).type === "string")
        result.push(candidate as Node);
    }
  }
  return result;
}

function walk(node: Node, visit: (node: Node) => void): void {
  visit(node);
  for (const child of children(node)) walk(child, visit);
}

/** Removes TypeScript wrappers (`as const`, `satisfies`, `!`, parentheses) around an expression. */
function unwrap(node: Node): Node {
  let current = node;
  while (
    ["TSAsExpression", "TSSatisfiesExpression", "TSNonNullExpression", "ParenthesizedExpression"].includes(current.type)
  ) {
    current = current.expression as Node;
  }
  return current;
}

export type StaticResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/**
 * Fence assertion 4: registration.ts default-exports `registerTaskClass("<literal>", ...)`, called
 * exactly once, with a string literal as its first argument. Returns the literal.
 */
export function registrationLiteralName(source: string): StaticResult<string> {
  let program: Node;
  try {
    program = parseModule(source);
  } catch (error) {
    return { ok: false, reason: `does not parse: ${(error as Error).message}` };
  }
  const localNames = new Set<string>();
  for (const statement of program.body as Node[]) {
    if (statement.type !== "ImportDeclaration" || (statement.source as Node).value !== "@eval/registry") continue;
    for (const specifier of statement.specifiers as Node[]) {
      const imported = specifier.imported as Node | undefined;
      if (specifier.type === "ImportSpecifier" && (imported?.name ?? imported?.value) === "registerTaskClass")
        localNames.add((specifier.local as Node).name as string);
    }
  }
  if (localNames.size === 0) return { ok: false, reason: 'does not import registerTaskClass from "@eval/registry"' };
  const calls: Node[] = [];
  walk(program, (node) => {
    if (
      node.type === "CallExpression" &&
      (node.callee as Node).type === "Identifier" &&
      localNames.has((node.callee as Node).name as string)
    )
      calls.push(node);
  });
  if (calls.length !== 1)
    return { ok: false, reason: `must call registerTaskClass exactly once (found ${calls.length})` };
  const exported = (program.body as Node[]).find((statement) => statement.type === "ExportDefaultDeclaration");
  if (exported === undefined || unwrap(exported.declaration as Node) !== calls[0]) {
    return { ok: false, reason: 'must `export default registerTaskClass("<name>", {...})`' };
  }
  const first = (calls[0]!.arguments as Node[])[0];
  if (first === undefined || first.type !== "StringLiteral") {
    return {
      ok: false,
      reason:
        "the first argument of registerTaskClass must be a string literal (not a variable, template or expression)",
    };
  }
  return { ok: true, value: first.value as string };
}

/**
 * Fence assertion 5, statically: breakdown-keys.ts has `export const BREAKDOWN_KEYS = [...] as const`
 * whose elements are all string literals (a computed key could hide a banned word). Returns them.
 */
export function staticBreakdownKeys(source: string): StaticResult<readonly string[]> {
  let program: Node;
  try {
    program = parseModule(source);
  } catch (error) {
    return { ok: false, reason: `does not parse: ${(error as Error).message}` };
  }
  for (const statement of program.body as Node[]) {
    const declaration = statement.type === "ExportNamedDeclaration" ? (statement.declaration as Node | null) : null;
    if (declaration?.type !== "VariableDeclaration") continue;
    for (const declarator of declaration.declarations as Node[]) {
      if ((declarator.id as Node).name !== "BREAKDOWN_KEYS") continue;
      if (declaration.kind !== "const") return { ok: false, reason: "BREAKDOWN_KEYS must be declared with const" };
      const init = declarator.init === null ? null : unwrap(declarator.init as Node);
      if (init?.type !== "ArrayExpression")
        return { ok: false, reason: 'BREAKDOWN_KEYS must be an array literal: ["key", ...] as const' };
      const keys: string[] = [];
      for (const element of init.elements as (Node | null)[]) {
        if (element?.type !== "StringLiteral")
          return { ok: false, reason: "every BREAKDOWN_KEYS element must be a string literal" };
        keys.push(element.value as string);
      }
      return { ok: true, value: keys };
    }
  }
  return { ok: false, reason: "must export const BREAKDOWN_KEYS = [...] as const" };
}
