// Keeps docs/architecture.md true: every file path it names in backticks exists, and in its run map
// every function named beside a file is declared in that file. A renamed or deleted file fails here.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");
const doc = readFileSync(join(repo, "docs", "architecture.md"), "utf8");

/** Backticked repo paths: a top-level directory of the repo, then at least one more segment. */
const ROOTS = ["apps", "packages", "bench", "scripts", "docs"];
const pathsNamed = [...doc.matchAll(/`([^`\s]+)`/g)]
  .map((match) => match[1]!.replace(/[.,:;)]+$/, ""))
  .filter((text) => ROOTS.some((root) => text.startsWith(`${root}/`)) && !text.includes("<") && !text.includes("*"));

/** Rows of the run map: | step | `function` | `file` |. */
const mapRows = [...doc.matchAll(/^\|[^|\n]+\| `([A-Za-z_$][\w$]*)` \| `([^`]+)` \|$/gm)].map((match) => ({
  name: match[1]!,
  file: match[2]!,
}));

describe("docs/architecture.md", () => {
  it("names files (many of them), and each exists", () => {
    expect(pathsNamed.length).toBeGreaterThan(20);
    const missing = [...new Set(pathsNamed)].filter((path) => !existsSync(join(repo, path)));
    expect(missing).toEqual([]);
  });

  it("maps a run step by step, and each function is declared in the file named beside it", () => {
    expect(mapRows.length).toBeGreaterThanOrEqual(15);
    const wrong = mapRows.filter(({ name, file }) => {
      const text = existsSync(join(repo, file)) ? readFileSync(join(repo, file), "utf8") : "";
      return !new RegExp(`(function\\*?|class|const|let)\\s+${name}\\b|\\{[^}]*\\b${name}\\b[^}]*\\}\\s*=`).test(text);
    });
    expect(wrong).toEqual([]);
  });
});
