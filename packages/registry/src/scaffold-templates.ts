/**
 * The files `evalgate init` writes: a task class that passes the fence, `bench sign` and `bench check` as
 * written. Its one example case asks for the answer to a question in answer.txt; the rubric compares it
 * with expected/answer.txt. Every text here is what a user reads first, so it says what to change.
 */

export type RubricLanguage = "typescript" | "python";

export const RUBRIC_TS = String.raw`import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runRubric, type Rubric } from "@eval/rubric-protocol";

// Judges the workspace the system under test left (context.workspacePath, a copy of the case's input/)
// against the case's expected/, which the SUT never sees. Deterministic: same files, same score.
const rubric: Rubric = {
  score(benchCase, _harnessOutput, context) {
    const expected = readFileSync(join(benchCase.expected_path, "answer.txt"), "utf8").trim();
    if (context.workspacePath === null) return verdict(null, expected);
    let answer: string | null = null;
    try {
      answer = readFileSync(join(context.workspacePath, "answer.txt"), "utf8").trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error; // a denied read is not the SUT's fault
    }
    return verdict(answer, expected);
  },
};

function verdict(answer: string | null, expected: string) {
  const correct = answer === expected;
  const failure_modes = correct ? [] : [{ code: answer === null ? "answer_missing" : "wrong_answer", severity: "block" as const, detail: answer }];
  return { passed: correct, score: correct ? 1 : 0, breakdown: { answer_correct: correct ? 1 : 0 }, failure_modes, cost_usd: 0, wall_clock_ms: 0 };
}

export default rubric; // tests import it and call score() in-process
if (process.argv[1] === import.meta.filename) await runRubric(rubric); // the subprocess entry: one request in, one response out
`;

export const RUBRIC_PY = String.raw`#!/usr/bin/env python3
"""Rubric: answer.txt in the workspace must equal the case's expected/answer.txt (standard library only)."""
import json
import os
import sys

request = json.load(sys.stdin)
if request.get("schema_version") != "evalgate.rubric_request.v1":
    print("unexpected rubric request version", file=sys.stderr)
    sys.exit(2)

case = request["case"]
workspace = request["context"]["workspace_path"]
with open(os.path.join(case["expected_path"], "answer.txt"), encoding="utf-8") as handle:
    expected = handle.read().strip()

answer = None
if workspace is not None:
    try:
        with open(os.path.join(workspace, "answer.txt"), encoding="utf-8") as handle:
            answer = handle.read().strip()
    except FileNotFoundError:
        pass
correct = answer == expected
failure_modes = [] if correct else [{"code": "answer_missing" if answer is None else "wrong_answer", "severity": "block", "detail": answer}]
json.dump({
    "schema_version": "evalgate.rubric_response.v1",
    "score": {
        "passed": correct,
        "score": 1.0 if correct else 0.0,
        "breakdown": {"answer_correct": 1.0 if correct else 0.0},
        "failure_modes": failure_modes,
        "cost_usd": 0,
        "wall_clock_ms": 0,
    },
}, sys.stdout)
sys.stdout.write("\n")
`;

export function registrationSource(slug: string, language: RubricLanguage): string {
  return `import { registerTaskClass } from "@eval/registry";

export default registerTaskClass("${slug}", {
  // Passing cases a promotion into each tier needs. Declare bronze once the bench has the tier's floor
  // (trust-tiers.yaml: 10 cases, 5 held out): the fence fails a tier the bench cannot reach.
  min_cases_for_promotion: {},
  score_kind: "binary", // the rubric reports exactly 0 or 1
  description: "Answer the question in question.txt, in answer.txt.",${language === "python" ? '\n  rubric_command: ["./rubric.py"], // executable, with a #!/usr/bin/env python3 line' : ""}
});
`;
}

export const BREAKDOWN_KEYS_SOURCE = `// The numbers a rubric may report besides its score: what the work achieved, never a model's opinion of it.
export const BREAKDOWN_KEYS = ["answer_correct"] as const;
`;

export const FAILURE_MODES_YAML = `# Every finding the rubric may report (block fails promotion; warn and info do not).
answer_missing:
  severity: block
  description: answer.txt was not written.
wrong_answer:
  severity: block
  description: answer.txt holds another answer than the expected one.
`;

export const NEAR_MISSES_YAML = `# Changes that look like a solution but are not: every positive case carries each one under
# cases/<id>/controls/<kind>/, and \`evalgate bench check\` asserts the rubric fails it with the failure
# mode the case's controls/controls.json names.
wrong-answer:
  description: answer.txt written, with an answer one off the expected one.
`;

export function benchReadme(slug: string): string {
  return `# ${slug}

What this task class measures, for reviewers: the system under test reads \`question.txt\` and writes the
answer, and nothing else, to \`answer.txt\`. Replace this with your own work: a case's \`input/\` is what the
system under test starts from, \`expected/\` what the rubric compares against, \`controls/\` the reference
fix and the near misses \`evalgate bench check\` scores.

After changing a case: \`evalgate bench sign --task-class ${slug}\`, then \`evalgate fence\` and
\`evalgate bench check --task-class ${slug}\`.
`;
}

export function benchManifest(slug: string): string {
  return `${JSON.stringify({ name: `bench-${slug}`, version: "0.0.0", private: true, type: "module" }, null, 2)}\n`;
}

export function caseToml(slug: string, caseId: string, canaryPin: string, now: string): string {
  return `case_id = "${caseId}"
task_class = "${slug}"
title = "An arithmetic question"
prompt = "Read question.txt and write the answer, and nothing else, to answer.txt."
disposition = "positive"
difficulty = "easy"
source = "curated"
curation_class = "held-out"
added_at = ${now}
last_validated_at = ${now}
cassette_canary_pin = "${canaryPin}"
`;
}

export const CASE_CONTROLS = `${JSON.stringify(
  {
    schema: "evalgate.bench-controls.v1",
    reference: "reference",
    near_misses: { "wrong-answer": { expect: "wrong_answer" } },
  },
  null,
  2,
)}\n`;

/** The tiers of this repository's docs/trust-tiers.yaml (a test holds them equal), with the new class at the base. */
export function trustTiersYaml(slug: string): string {
  return `# Trust tiers: how far an AI coding agent is trusted with each task class. Edited only by people, in
# reviewed changes; evalgate reads it and never writes it. \`evalgate promote-verdict\` says whether the
# evidence supports a promotion; promoting means changing \`current:\` below, citing that verdict.
# NOT CALIBRATED: the thresholds are candidates chosen by judgement (docs/trust-tiers.yaml in evalgate).
schema_version: evalgate.trust_tiers.v1
calibrated: false
tiers:
  - name: untrusted
    threshold: 0.0
    min_cases: 0
    min_held_out: 0
    description: Every change is reviewed line by line; the agent's output is a suggestion.
  - name: bronze
    threshold: 0.6
    min_cases: 10
    min_held_out: 5
    description: The agent may open pull requests for this task class; a human reviews each one.
  - name: silver
    threshold: 0.8
    min_cases: 15
    min_held_out: 5
    require_sandbox: true
    description: Lighter review (spot checks); the evidence must include at least 5 held-out cases.
  - name: gold
    threshold: 0.9
    min_cases: 32
    min_held_out: 10
    require_sandbox: true
    description: Auto-merge behind CI for this task class; held-out evidence must be substantial.
current:
  ${slug}: untrusted
`;
}

export function configJson(benchRoot: string, stateDir: string, trustTiers: string): string {
  return `${JSON.stringify(
    {
      $schema: "./node_modules/@eval/models/schemas/evalgate-config.schema.json",
      bench_root: benchRoot,
      state_dir: stateDir,
      trust_tiers: trustTiers,
    },
    null,
    2,
  )}\n`;
}

/** A CI workflow that proves the bench on every change (the run needs the user's SUT: commented out). */
export function workflowYaml(slug: string, evalgate: string): string {
  const install = evalgate.startsWith("pnpm")
    ? "corepack enable && pnpm install --frozen-lockfile"
    : evalgate.startsWith("yarn")
      ? "corepack enable && yarn install --immutable"
      : evalgate.startsWith("bunx")
        ? "npm install -g bun && bun install --frozen-lockfile"
        : "npm ci";
  return `# Proves the ${slug} bench on every change: the fence, then bench check (the reference fix passes, the
# no-op and the near misses fail). Add a run against your system under test where the comment says.
name: evalgate
on:
  pull_request:
  push:
    branches: [main]
permissions:
  contents: read
concurrency:
  group: evalgate-${slug}-\${{ github.ref }}
  cancel-in-progress: false
jobs:
  bench:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 24
      # bubblewrap: the sandbox the rubric runs in (the runner is not root: sudo).
      - run: sudo apt-get update -q && sudo apt-get install -y -q bubblewrap
      # Ubuntu 24.04 restricts unprivileged user namespaces through AppArmor; bubblewrap needs them.
      - run: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 || true
      - run: ${install}
      - run: ${evalgate} fence --format human
      - run: ${evalgate} bench check --task-class ${slug} --format human
      # - run: ${evalgate} run --task-class ${slug} --sut 'command:<your agent>' --junit junit.xml
`;
}
