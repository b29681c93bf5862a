// Generates throwaway task classes for the `evalgate run` benchmarks: N tiny cases, a trivial Node
// rubric (reads its request, answers a fixed score; importing nothing, or through runRubric as
// docs/bench-authoring.md teaches), a no-op module SUT and a trivial command SUT.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const REPO = join(import.meta.dirname, "..", "..");
export const BIN = join(REPO, "apps", "cli", "dist", "bin.js");

/** A rubric that imports nothing: reads the request, answers a fixed score. */
export const BARE_RUBRIC = `import { readFileSync } from "node:fs";
const request = JSON.parse(readFileSync(0, "utf8"));
const score = request.case.case_id.endsWith("0") ? 0.5 : 1;
process.stdout.write(JSON.stringify({ schema_version: "evalgate.rubric_response.v1", score: { passed: score === 1, score, breakdown: { quality: score }, failure_modes: [], cost_usd: 0, wall_clock_ms: 0 } }));
`;

/** The same rubric written the documented way, through runRubric from @eval/rubric-protocol. */
export const IDIOM_RUBRIC = `import { runRubric } from "@eval/rubric-protocol";
await runRubric({
  score(benchCase) {
    const score = benchCase.case_id.endsWith("0") ? 0.5 : 1;
    return { passed: score === 1, score, breakdown: { quality: score }, failure_modes: [], cost_usd: 0, wall_clock_ms: 0 };
  },
});
`;

/** A trivial command SUT: reads its request, answers an empty harness output. */
const COMMAND_SUT = `import { readFileSync } from "node:fs";
JSON.parse(readFileSync(0, "utf8"));
process.stdout.write("{}");
`;

export interface GeneratedBench {
  readonly root: string;
  readonly benchRoot: string;
  /** `<benchRoot>/perf`. */
  readonly benchPath: string;
  readonly stateDir: string;
  /** argv after `node bin.js` for one run. */
  runArgs(extra?: readonly string[]): string[];
}

export function generateBench(cases: number, options: { readonly rubric?: string } = {}): GeneratedBench {
  const root = mkdtempSync(join(tmpdir(), `evalgate-bench-run-${cases}-`));
  // Shown read-only to sandboxed processes, which run as nobody when the benchmark runs as root.
  chmodSync(root, 0o755);
  const benchRoot = join(root, "bench");
  const benchPath = join(benchRoot, "perf");
  mkdirSync(join(root, "node_modules", "@eval"), { recursive: true });
  for (const name of ["registry", "models", "errors", "rubric-protocol"])
    symlinkSync(join(REPO, "packages", name), join(root, "node_modules", "@eval", name));
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "perf-root", private: true, type: "module" }));
  mkdirSync(join(benchPath, "cases"), { recursive: true });
  writeFileSync(join(benchPath, "package.json"), JSON.stringify({ name: "bench-perf", private: true, type: "module" }));
  writeFileSync(join(benchPath, "README.md"), "# perf\n\nGenerated for benchmarks.\n");
  writeFileSync(
    join(benchPath, "registration.ts"),
    `import { registerTaskClass } from "@eval/registry";\nexport default registerTaskClass("perf", { min_cases_for_promotion: { bronze: 1 } });\n`,
  );
  writeFileSync(join(benchPath, "breakdown-keys.ts"), `export const BREAKDOWN_KEYS = ["quality"] as const;\n`);
  writeFileSync(join(benchPath, "failure_modes.yaml"), "wrong:\n  severity: block\n  description: Wrong.\n");
  writeFileSync(join(benchPath, "rubric.ts"), options.rubric ?? BARE_RUBRIC);
  writeFileSync(join(root, "sut.mjs"), "export async function noop() { return {}; }\n");
  writeFileSync(join(root, "sut-command.mjs"), COMMAND_SUT);
  for (let i = 0; i < cases; i += 1) {
    const id = `case-${String(i).padStart(4, "0")}`;
    const casePath = join(benchPath, "cases", id);
    mkdirSync(join(casePath, "input"), { recursive: true });
    mkdirSync(join(casePath, "expected"), { recursive: true });
    writeFileSync(
      join(casePath, "case.toml"),
      `case_id = "${id}"\ntask_class = "perf"\ndisposition = "positive"\ndifficulty = "easy"\nsource = "curated"\ncuration_class = "held-out"\nadded_at = 2026-11-01T00:00:00Z\nlast_validated_at = 2026-11-20T00:00:00Z\ncassette_canary_pin = "${i.toString(16).padStart(32, "0")}"\n`,
    );
    writeFileSync(join(casePath, "input", "text.txt"), `input ${i}\n`);
    writeFileSync(join(casePath, "expected", "text.txt"), `INPUT ${i}\n`);
  }
  execFileSync(process.execPath, [BIN, "bench", "sign", "--task-class", "perf", "--bench-root", benchRoot], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const stateDir = join(root, "state");
  return {
    root,
    benchRoot,
    benchPath,
    stateDir,
    runArgs: (extra = []) => [
      BIN,
      "run",
      "--task-class",
      "perf",
      "--bench-root",
      benchRoot,
      "--out",
      stateDir,
      ...(extra.includes("--sut") ? [] : ["--sut", "module:sut.mjs#noop"]),
      "--max-cost-usd",
      "1",
      ...extra,
    ],
  };
}
