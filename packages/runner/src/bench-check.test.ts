// bench check on a real, signed task class in a temp dir (an upper-casing task): a strict rubric passes
// its controls; a lenient one is caught by the near miss it lets through; missing and undeclared
// controls are problems; a negative case's no-op must pass. Rubrics run as a run runs them
// (--sandbox none here, so the test does not depend on bubblewrap; the sandboxed path is the same launcher).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { signBench } from "@eval/registry";
import { checkBench } from "./bench-check.ts";

const REPO = join(import.meta.dirname, "..", "..", "..");
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const STRICT = String.raw`
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runRubric } from "@eval/rubric-protocol";
await runRubric({
  score(benchCase, _output, context) {
    const want = readFileSync(join(benchCase.expected_path, "text.txt"), "utf8").trim();
    const got = readFileSync(join(context.workspacePath, "text.txt"), "utf8");
    const modes = [];
    if (got.trim() !== want) modes.push({ code: "wrong_text", severity: "block", detail: got.trim() });
    else if (got !== want + "\n" && __LENIENT__) modes.push({ code: "stray_whitespace", severity: "warn", detail: null });
    const passed = modes.length === 0;
    return { passed, score: passed ? 1 : 0, breakdown: { exact: passed ? 1 : 0 }, failure_modes: modes, cost_usd: 0, wall_clock_ms: 0 };
  },
});
`;

function write(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

interface CaseSpec {
  readonly id: string;
  readonly disposition?: "positive" | "negative";
  readonly input: string;
  readonly expected: string;
  readonly controls?: Record<string, unknown> | null;
  readonly overlays?: Record<string, string>;
}

async function makeBench(options: { lenient?: boolean; cases: CaseSpec[] }): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), "evalgate-bench-check-"));
  roots.push(root);
  mkdirSync(join(root, "node_modules", "@eval"), { recursive: true });
  for (const name of ["registry", "models", "errors", "rubric-protocol", "hashing"])
    symlinkSync(join(REPO, "packages", name), join(root, "node_modules", "@eval", name));
  const bench = join(root, "bench", "shout");
  write(join(bench, "package.json"), JSON.stringify({ name: "shout-bench", private: true, type: "module" }));
  write(join(bench, "README.md"), "# shout\n");
  write(
    join(bench, "registration.ts"),
    `import { registerTaskClass } from "@eval/registry";\nexport default registerTaskClass("shout", { min_cases: 1, min_cases_for_promotion: { bronze: 1 }, score_kind: "binary", description: "Upper-case a text file." });\n`,
  );
  write(join(bench, "breakdown-keys.ts"), `export const BREAKDOWN_KEYS = ["exact"] as const;\n`);
  write(
    join(bench, "failure_modes.yaml"),
    "wrong_text:\n  severity: block\n  description: The text is not the upper-cased input.\nstray_whitespace:\n  severity: warn\n  description: Whitespace was added.\n",
  );
  write(
    join(bench, "near-misses.yaml"),
    "half-done:\n  description: Only the first word upper-cased.\ntrailing-space:\n  description: The right text with a trailing space.\n",
  );
  write(join(bench, "rubric.ts"), STRICT.replace("__LENIENT__", options.lenient === true ? "false" : "true"));
  for (const spec of options.cases) {
    const dir = join(bench, "cases", spec.id);
    write(
      join(dir, "case.toml"),
      `case_id = "${spec.id}"\ntask_class = "shout"\ntitle = "shout"\nprompt = "Upper-case text.txt."\ndisposition = "${spec.disposition ?? "positive"}"\ndifficulty = "easy"\nsource = "curated"\ncuration_class = "held-out"\nadded_at = 2026-11-01T00:00:00Z\nlast_validated_at = 2026-11-20T00:00:00Z\ncassette_canary_pin = "0123456789abcdef0123456789abcdef"\n`,
    );
    write(join(dir, "input", "text.txt"), `${spec.input}\n`);
    write(join(dir, "expected", "text.txt"), `${spec.expected}\n`);
    if (spec.controls !== null)
      write(
        join(dir, "controls", "controls.json"),
        JSON.stringify({
          schema: "evalgate.bench-controls.v1",
          reference: "reference",
          near_misses: spec.controls ?? {},
        }),
      );
    for (const [control, text] of Object.entries(spec.overlays ?? {}))
      write(join(dir, "controls", control, "text.txt"), text);
  }
  await signBench({ benchPath: bench });
  return join(root, "bench");
}

const HELLO: CaseSpec = {
  id: "hello",
  input: "hello world",
  expected: "HELLO WORLD",
  controls: { "half-done": { expect: "wrong_text" }, "trailing-space": { expect: "stray_whitespace" } },
  overlays: { reference: "HELLO WORLD\n", "half-done": "HELLO world\n", "trailing-space": "HELLO WORLD \n" },
};

describe("checkBench", () => {
  it("a strict rubric: the reference passes, the no-op fails, each near miss is caught with its failure mode", async () => {
    const benchRoot = await makeBench({ cases: [HELLO] });
    const result = await checkBench({ taskClass: "shout", benchRoot, sandbox: "none" });
    expect(result.kinds).toEqual(["half-done", "trailing-space"]);
    expect(result.checks.map((c) => [c.control, c.passed, c.failureModes, c.ok])).toEqual([
      ["reference", true, [], true],
      ["no-op", false, ["wrong_text"], true],
      ["half-done", false, ["wrong_text"], true],
      ["trailing-space", false, ["stray_whitespace"], true],
    ]);
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
  }, 120_000);

  it("a lenient rubric is caught: the near miss it lets through is not ok", async () => {
    const benchRoot = await makeBench({ lenient: true, cases: [HELLO] });
    const result = await checkBench({ taskClass: "shout", benchRoot, sandbox: "none" });
    const missed = result.checks.find((c) => c.control === "trailing-space")!;
    expect(missed).toMatchObject({ passed: true, ok: false });
    expect(result.ok).toBe(false);
  }, 120_000);

  it("a case without controls, with an undeclared near miss, or silent on a declared one is a problem", async () => {
    const benchRoot = await makeBench({
      cases: [
        { id: "bare", input: "a", expected: "A", controls: null },
        {
          id: "odd",
          input: "b",
          expected: "B",
          controls: { "made-up": { not_applicable: "x" } },
          overlays: { reference: "B\n" },
        },
      ],
    });
    const result = await checkBench({ taskClass: "shout", benchRoot, sandbox: "none" });
    expect(result.problems).toEqual([
      "bare: no controls/controls.json, so no reference fix proves the case solvable",
      'odd: near miss "made-up" is not declared in near-misses.yaml',
      'odd: declares nothing for near miss "half-done" (add it, or say why it is not_applicable)',
      'odd: declares nothing for near miss "trailing-space" (add it, or say why it is not_applicable)',
    ]);
    expect(result.ok).toBe(false);
  }, 120_000);

  it("a reference fix that fails and a negative case whose no-op fails are not ok; a negative no-op must pass", async () => {
    const benchRoot = await makeBench({
      cases: [
        {
          id: "unsolvable",
          input: "c",
          expected: "C",
          controls: { "half-done": { not_applicable: "one word" }, "trailing-space": { not_applicable: "n/a" } },
          overlays: { reference: "c\n" },
        },
        {
          id: "already",
          disposition: "negative",
          input: "D",
          expected: "D",
          controls: { "half-done": { not_applicable: "negative" }, "trailing-space": { not_applicable: "negative" } },
          overlays: { reference: "D\n" },
        },
      ],
    });
    const result = await checkBench({ taskClass: "shout", benchRoot, sandbox: "none" });
    const row = (caseId: string, control: string) =>
      result.checks.find((c) => c.caseId === caseId && c.control === control)!;
    expect(row("unsolvable", "reference")).toMatchObject({ passed: false, ok: false });
    expect(row("already", "no-op")).toMatchObject({ expected: "pass", passed: true, ok: true });
    expect(result.notApplicable).toHaveLength(4);
  }, 120_000);

  it("a filter that matches no case is refused", async () => {
    const benchRoot = await makeBench({ cases: [HELLO] });
    await expect(
      checkBench({ taskClass: "shout", benchRoot, caseFilter: "nope-*", sandbox: "none" }),
    ).rejects.toMatchObject({ code: "EVAL_NO_CASES_SELECTED" });
  }, 120_000);
});
