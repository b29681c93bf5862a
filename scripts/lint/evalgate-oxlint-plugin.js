// evalgate's own lint rules, as an oxlint JS plugin (ESLint rule API).
// index-named-reexports-only: a package's src/index.ts holds nothing but named re-exports
// (`export { a, b } from "./x.ts"` and `export type { T } from "./x.ts"`): no code, no `export *`,
// no local declarations, so what a package offers is the list in that one file.

const indexNamedReexportsOnly = {
  meta: { type: "problem", docs: { description: "index.ts files contain only named re-exports" } },
  create(context) {
    return {
      Program(program) {
        for (const statement of program.body) {
          if (statement.type === "ExportNamedDeclaration" && statement.source != null && statement.declaration == null)
            continue;
          const what =
            statement.type === "ExportAllDeclaration"
              ? "`export *` (name each export)"
              : statement.type.startsWith("Export")
                ? "an exported declaration (move it to its own file)"
                : `code (${statement.type})`;
          context.report({
            node: statement,
            message: `index.ts may only re-export named symbols (export { a } from "./a.ts"); found ${what}`,
          });
        }
      },
    };
  },
};

export default {
  meta: { name: "evalgate" },
  rules: { "index-named-reexports-only": indexNamedReexportsOnly },
};
