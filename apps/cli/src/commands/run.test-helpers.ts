// A small signed task class in a temp dir for `evalgate run` tests: upper-casing text files.
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PACKAGES = join(import.meta.dirname, "..", "..", "..", "..", "packages");

export const UPPER_RUBRIC = String.raw`
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runRubric } from "@eval/rubric-protocol";
await runRubric({
  score(benchCase, harnessOutput, context) {
    const expected = readFileSync(join(benchCase.expected_path, "text.txt"), "utf8");
    const actual = readFileSync(join(context.workspacePath, "text.txt"), "utf8");
    let same = 0;
    for (let i = 0; i < expected.length; i++) if (actual[i] === expected[i]) same++;
    const score = same / expected.length;
    return { passed: score === 1, score, breakdown: { quality: score }, failure_modes: score === 1 ? [] : [{ code: "wrong_text", severity: "block", detail: null }], cost_usd: 0, wall_clock_ms: 0 };
  },
});
`;

/** `command:` SUT: upper-cases the workspace's text.txt and reports spending $1. */
export const UPPER_COMMAND = String.raw`
import { readFileSync, writeFileSync } from "node:fs";
const request = JSON.parse(readFileSync(0, "utf8"));
const path = request.workspace_path + "/text.txt";
writeFileSync(path, readFileSync(path, "utf8").toUpperCase());
process.stdout.write(JSON.stringify({ cost_usd: 1, tag: process.env.EVALGATE_BENCH_INVOCATION_TAG }));
`;

export async function makeUpperBench(
  cases: Record<string, string>,
  registration: { score_kind?: "binary" | "graded" } = {},
): Promise<{ root: string; benchRoot: string; benchPath: string }> {
  const { signBench } = await import("@eval/registry");
  const root = await mkdtemp(join(tmpdir(), "evalgate-cli-run-"));
  const benchRoot = join(root, "bench");
  const benchPath = join(benchRoot, "upper");
  await mkdir(join(root, "node_modules", "@eval"), { recursive: true });
  for (const name of ["registry", "models", "errors", "rubric-protocol"])
    await symlink(join(PACKAGES, name), join(root, "node_modules", "@eval", name));
  await writeFile(join(root, "package.json"), JSON.stringify({ name: "cli-run-test", private: true, type: "module" }));
  await mkdir(join(benchPath, "cases"), { recursive: true });
  await writeFile(
    join(benchPath, "package.json"),
    JSON.stringify({ name: "bench-upper", private: true, type: "module" }),
  );
  await writeFile(join(benchPath, "README.md"), "# upper\n\nUpper-case a text file.\n");
  await writeFile(
    join(benchPath, "registration.ts"),
    `import { registerTaskClass } from "@eval/registry";\nexport default registerTaskClass("upper", { min_cases_for_promotion: { bronze: 1 }${registration.score_kind === undefined ? "" : `, score_kind: "${registration.score_kind}"`} });\n`,
  );
  await writeFile(join(benchPath, "breakdown-keys.ts"), `export const BREAKDOWN_KEYS = ["quality"] as const;\n`);
  await writeFile(
    join(benchPath, "failure_modes.yaml"),
    "wrong_text:\n  severity: block\n  description: The text differs.\n",
  );
  // A binary task class scores exactly 0 or 1: the whole text upper-cased, or not.
  const rubric =
    registration.score_kind === "binary"
      ? UPPER_RUBRIC.replace("const score = same / expected.length;", "const score = same === expected.length ? 1 : 0;")
      : UPPER_RUBRIC;
  await writeFile(join(benchPath, "rubric.ts"), rubric);
  await writeFile(join(root, "upper.mjs"), UPPER_COMMAND);
  await writeFile(
    join(root, "sut.mjs"),
    "export async function same() { return {}; }\nexport async function upper(inv) { const fs = await import('node:fs'); const p = inv.workspacePath + '/text.txt'; fs.writeFileSync(p, fs.readFileSync(p, 'utf8').toUpperCase()); return { cost_usd: 0 }; }\n",
  );
  let n = 0;
  for (const [caseId, text] of Object.entries(cases)) {
    n += 1;
    const casePath = join(benchPath, "cases", caseId);
    await mkdir(join(casePath, "input"), { recursive: true });
    await mkdir(join(casePath, "expected"), { recursive: true });
    await writeFile(
      join(casePath, "case.toml"),
      `case_id = "${caseId}"\ntask_class = "upper"\ndisposition = "positive"\ndifficulty = "easy"\nsource = "curated"\ncuration_class = "held-out"\nadded_at = 2026-11-01T00:00:00Z\nlast_validated_at = 2026-11-20T00:00:00Z\ncassette_canary_pin = "${String(n).padStart(32, "0")}"\n`,
    );
    await writeFile(join(casePath, "input", "text.txt"), text);
    await writeFile(join(casePath, "expected", "text.txt"), text.toUpperCase());
  }
  await signBench({ benchPath, name: "upper" });
  return { root, benchRoot, benchPath };
}
