// The migration-chainguard-distroless rubric. It parses the Dockerfile the system under test left in
// its workspace and checks it against expected/facts.json: hardened final base, builder stage where
// compilation happens, nothing but copied artifacts in the final stage, non-root, exec-form command,
// same ports and artifacts, pinned images. Pure reads and parsing; no docker, no processes.
import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { agentErrorDetail, changedFiles, runRubric, type Rubric } from "@eval/rubric-protocol";
import type { BenchCase, BenchScoreInput, HarnessOutput } from "@eval/models";
import type { BREAKDOWN_KEYS } from "./breakdown-keys.ts";
import {
  copySourceStage,
  parseDockerfile,
  type Dockerfile,
  type ImageRef,
  type Instruction,
  type Stage,
} from "./dockerfile.ts";

type BreakdownKey = (typeof BREAKDOWN_KEYS)[number];
type Severity = "block" | "warn" | "info";
interface Finding {
  readonly code: string;
  readonly severity: Severity;
  readonly detail: string | null;
}

/** expected/facts.json. */
export interface MigrationFacts {
  readonly dockerfile: string;
  readonly ports: readonly number[];
  /** Absolute paths the final image must contain (copied in by COPY/ADD). */
  readonly artifacts: readonly string[];
  /** Strings the final ENTRYPOINT+CMD argv must still contain (the program it runs). */
  readonly command_tokens: readonly string[];
  readonly requires_builder: boolean;
  /** A script that needs /bin/sh at runtime, or null. */
  readonly runtime_shell_script: string | null;
  readonly allowed_files: readonly string[];
}

export function readFacts(expectedPath: string): MigrationFacts {
  const file = join(expectedPath, "facts.json");
  const value = JSON.parse(readFileSync(file, "utf8")) as Partial<MigrationFacts>;
  const valid =
    typeof value.dockerfile === "string" &&
    Array.isArray(value.ports) &&
    Array.isArray(value.artifacts) &&
    Array.isArray(value.command_tokens) &&
    typeof value.requires_builder === "boolean" &&
    (value.runtime_shell_script === null || typeof value.runtime_shell_script === "string") &&
    Array.isArray(value.allowed_files);
  // A malformed expectation is a bench defect, not an agent failure: fail loudly.
  if (!valid) throw new Error(`${file} does not have the migration-chainguard-distroless.expected.v1 shape`);
  return value as MigrationFacts;
}

const HARDENED_REGISTRIES = ["cgr.dev/chainguard/", "gcr.io/distroless/"];
const FLOATING_TAGS = new Set(["latest", "latest-dev"]);
const PACKAGE_MANAGER =
  /(^|[\s;&|/(])(apk|apt-get|apt|yum|dnf|microdnf|zypper|pip3?|npm|yarn|pnpm|gem|mvn|gradle|go\s+(build|get|install|mod))(?=\s|$)/;
const ROOT_USERS = /^(root|0)(:(root|0))?$/;

const isHardened = (image: ImageRef | null): boolean =>
  image !== null && HARDENED_REGISTRIES.some((prefix) => image.repository.startsWith(prefix));

/** Does the runtime image ship a shell? Chainguard -dev tags, wolfi-base and busybox do; distroless :debug does. */
export function hasShell(image: ImageRef | null): boolean {
  if (image === null) return false;
  if (!isHardened(image)) return true;
  const tag = image.tag ?? "";
  if (image.repository.startsWith("gcr.io/distroless/")) return tag.includes("debug");
  return tag.endsWith("-dev") || /\/(wolfi-base|busybox)$/.test(image.repository);
}

/** The default user of a hardened base when the Dockerfile sets none. */
function defaultsToNonRoot(image: ImageRef | null): boolean {
  if (image === null || !isHardened(image)) return false;
  if (image.repository.startsWith("gcr.io/distroless/")) return (image.tag ?? "").includes("nonroot");
  // Chainguard runtime images run as nonroot (65532); -dev variants are meant for building and may
  // run as root, so they need an explicit USER.
  return !(image.tag ?? "").endsWith("-dev");
}

/** The final stage and the stages it builds on (FROM <stage>), final first. */
function lineage(dockerfile: Dockerfile): Stage[] {
  const chain: Stage[] = [];
  let stage: Stage | undefined = dockerfile.stages.at(-1);
  while (stage) {
    chain.push(stage);
    stage = stage.fromStage === null ? undefined : dockerfile.stages[stage.fromStage];
  }
  return chain;
}

const lastOf = (chain: readonly Stage[], keyword: string): Instruction | null => {
  for (const stage of chain) {
    const found = stage.instructions.filter((i) => i.keyword === keyword).at(-1);
    if (found) return found;
  }
  return null;
};

/** Destinations of COPY/ADD in the final lineage, resolved against WORKDIR. */
function copiedPaths(chain: readonly Stage[]): Array<{ dest: string; sources: string[]; from: string | null }> {
  const copies: Array<{ dest: string; sources: string[]; from: string | null }> = [];
  // A stage built FROM another stage inherits its WORKDIR; an image's own WORKDIR is unknown here: "/".
  let workdir = "/";
  for (const stage of [...chain].reverse()) {
    for (const instruction of stage.instructions) {
      if (instruction.keyword === "WORKDIR") workdir = posix.resolve(workdir, instruction.args.trim());
      if (instruction.keyword !== "COPY" && instruction.keyword !== "ADD") continue;
      const parts = instruction.execForm ?? instruction.args.split(/\s+/).filter(Boolean);
      if (parts.length < 2) continue;
      const rawDest = parts.at(-1)!;
      const dest = posix.resolve(workdir, rawDest) + (rawDest.endsWith("/") && rawDest !== "/" ? "/" : "");
      copies.push({ dest, sources: parts.slice(0, -1), from: instruction.flags.from ?? null });
    }
  }
  return copies;
}

function artifactPresent(artifact: string, copies: ReturnType<typeof copiedPaths>): boolean {
  return copies.some(({ dest, sources }) => {
    const base = dest.replace(/\/$/, "");
    if (artifact === base || artifact.startsWith(`${base}/`)) return true;
    return sources.some((source) => posix.join(base, posix.basename(source.replace(/\/$/, ""))) === artifact);
  });
}

const ZERO = Object.fromEntries(
  [
    "hardened_base",
    "images_pinned",
    "builder_stage",
    "final_stage_minimal",
    "non_root",
    "exec_form_command",
    "ports_preserved",
    "artifacts_preserved",
    "runtime_shell_ok",
    "scope_clean",
  ].map((k) => [k, 0]),
) as Record<BreakdownKey, number>;

function result(breakdown: Record<BreakdownKey, number>, findings: readonly Finding[]): BenchScoreInput {
  const others = Object.entries(breakdown)
    .filter(([key]) => key !== "hardened_base")
    .map(([, value]) => value);
  // An image that is not on a hardened base was not migrated: nothing else earns credit then. A
  // block-severity finding means the image would not build, run or be hardened: it halves the credit.
  const blocked = findings.some((f) => f.severity === "block");
  const score = breakdown.hardened_base * (others.reduce((a, b) => a + b, 0) / others.length) * (blocked ? 0.5 : 1);
  return {
    passed: findings.every((f) => f.severity === "info"),
    score: Math.round(score * 10000) / 10000,
    breakdown,
    failure_modes: findings.map((f) => ({ code: f.code, severity: f.severity, detail: f.detail })),
    cost_usd: 0,
    wall_clock_ms: 0,
  };
}

/** Judges a parsed Dockerfile against the facts; exported for tests of single rules. */
export function judgeDockerfile(
  dockerfile: Dockerfile,
  facts: MigrationFacts,
): { breakdown: Record<BreakdownKey, number>; findings: Finding[] } {
  const findings: Finding[] = [];
  const add = (code: string, severity: Severity, detail: string) => findings.push({ code, severity, detail });
  const chain = lineage(dockerfile);
  const final = chain[0]!;
  const runtimeImage = chain.at(-1)!.image;
  const finalLine = `final stage (line ${final.line})`;

  const hardened = isHardened(runtimeImage);
  if (!hardened) add("base_not_hardened", "block", `${finalLine} runs on ${chain.at(-1)!.from}`);

  const unpinned = dockerfile.stages
    .filter((s) => s.image !== null && s.image.raw !== "scratch")
    .filter((s) => s.image!.digest === null && (s.image!.tag === null || FLOATING_TAGS.has(s.image!.tag)))
    .map((s) => `${s.from} (line ${s.line})`);
  if (unpinned.length > 0)
    add("image_unpinned", "warn", `not pinned by digest or explicit tag: ${unpinned.join(", ")}`);

  const copies = copiedPaths(chain);
  const copiesFromStage = copies.some(
    (c) =>
      c.from !== null &&
      copySourceStage(dockerfile, c.from) !== null &&
      !chain.includes(copySourceStage(dockerfile, c.from)!),
  );
  const builderOk = !facts.requires_builder || (dockerfile.stages.length > 1 && copiesFromStage);
  if (!builderOk)
    add(
      "no_builder_stage",
      "block",
      "the service is compiled or installs dependencies, but the final stage copies nothing from a builder stage",
    );

  const finalInstructions = chain.flatMap((s) => s.instructions);
  const managers = finalInstructions.filter(
    (i) => i.keyword === "RUN" && PACKAGE_MANAGER.test(i.execForm ? i.execForm.join(" ") : i.args),
  );
  if (managers.length > 0)
    add(
      "package_manager_in_final",
      "block",
      managers.map((i) => `line ${i.line}: RUN ${i.args.slice(0, 80)}`).join("; "),
    );
  const shellForms = finalInstructions.filter(
    (i) => ["RUN", "CMD", "ENTRYPOINT"].includes(i.keyword) && i.execForm === null,
  );
  const entrypoint = lastOf(chain, "ENTRYPOINT");
  const cmd = lastOf(chain, "CMD");
  const commandShellForm = [entrypoint, cmd].some((i) => i !== null && i.execForm === null);
  if (shellForms.length > 0)
    add(
      "shell_form_in_final",
      "block",
      shellForms.map((i) => `line ${i.line}: ${i.keyword} ${i.args.slice(0, 80)}`).join("; "),
    );

  const user = lastOf(chain, "USER");
  const nonRoot = user === null ? defaultsToNonRoot(runtimeImage) : !ROOT_USERS.test(user.args.trim());
  if (!nonRoot)
    add(
      "runs_as_root",
      "block",
      user === null
        ? `no USER, and ${chain.at(-1)!.from} does not default to a non-root user`
        : `line ${user.line}: USER ${user.args}`,
    );

  const exposed = new Set(
    chain.flatMap((s) =>
      s.instructions
        .filter((i) => i.keyword === "EXPOSE")
        .flatMap((i) => i.args.split(/\s+/).map((p) => Number.parseInt(p, 10))),
    ),
  );
  const missingPorts = facts.ports.filter((p) => !exposed.has(p));
  if (missingPorts.length > 0) add("ports_changed", "block", `no longer exposed: ${missingPorts.join(", ")}`);

  const argv = [
    ...(entrypoint ? (entrypoint.execForm ?? [entrypoint.args]) : []),
    ...(cmd ? (cmd.execForm ?? [cmd.args]) : []),
  ];
  const missingArtifacts = facts.artifacts.filter((a) => !artifactPresent(a, copies));
  const missingTokens = facts.command_tokens.filter((token) => !argv.some((arg) => arg.includes(token)));
  if (missingArtifacts.length > 0 || missingTokens.length > 0) {
    const parts = [
      ...missingArtifacts.map((a) => `${a} is not copied into the final stage`),
      ...missingTokens.map((t) => `the command (${JSON.stringify(argv)}) no longer runs ${t}`),
    ];
    add("artifact_missing", "block", parts.join("; "));
  }

  const script = facts.runtime_shell_script;
  const usesScript = script !== null && argv.some((arg) => arg.includes(script));
  const shellOk = !usesScript || hasShell(runtimeImage);
  if (!shellOk)
    add("shell_required_missing", "block", `the command runs ${script}, but ${chain.at(-1)!.from} has no shell`);

  const breakdown: Record<BreakdownKey, number> = {
    hardened_base: hardened ? 1 : 0,
    images_pinned: unpinned.length === 0 ? 1 : 0,
    builder_stage: builderOk ? 1 : 0,
    final_stage_minimal: managers.length === 0 && shellForms.filter((i) => i.keyword === "RUN").length === 0 ? 1 : 0,
    non_root: nonRoot ? 1 : 0,
    exec_form_command: commandShellForm || argv.length === 0 ? 0 : 1,
    ports_preserved: missingPorts.length === 0 ? 1 : 0,
    artifacts_preserved: missingArtifacts.length === 0 && missingTokens.length === 0 ? 1 : 0,
    runtime_shell_ok: shellOk ? 1 : 0,
    scope_clean: 1,
  };
  return { breakdown, findings };
}

export function scoreCase(
  benchCase: BenchCase,
  harnessOutput: HarnessOutput,
  workspacePath: string | null,
): BenchScoreInput {
  const facts = readFacts(benchCase.expected_path);
  const trialClass = typeof harnessOutput.trial_class === "string" ? harnessOutput.trial_class : null;
  const notes: Finding[] = [];
  if (trialClass === "cli_error") {
    const why = agentErrorDetail(harnessOutput);
    return result(ZERO, [{ code: "agent_cli_error", severity: "block", detail: why }]);
  }
  if (trialClass === "model_refusal")
    notes.push({ code: "agent_refused", severity: "info", detail: "the agent declined the task" });
  if (trialClass === "parse_failure" || trialClass === "format_drift")
    notes.push({ code: "agent_stream_unparsed", severity: "info", detail: `trial classified ${trialClass}` });
  if (workspacePath === null)
    return result(ZERO, [
      ...notes,
      { code: "workspace_missing", severity: "block", detail: "no workspace_path in the rubric context" },
    ]);

  let text: string;
  try {
    text = readFileSync(join(workspacePath, facts.dockerfile), "utf8");
  } catch (error) {
    // Only absence is the agent's doing; a denied or failing read is the harness's problem: throw.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return result(ZERO, [
      ...notes,
      { code: "dockerfile_missing", severity: "block", detail: `${facts.dockerfile} is not in the workspace` },
    ]);
  }
  const dockerfile = parseDockerfile(text);
  if (dockerfile.stages.length === 0)
    return result(ZERO, [
      ...notes,
      { code: "dockerfile_unparseable", severity: "block", detail: dockerfile.problems.join("; ") },
    ]);

  const { breakdown, findings } = judgeDockerfile(dockerfile, facts);
  if (dockerfile.problems.length > 0)
    findings.unshift({ code: "dockerfile_unparseable", severity: "block", detail: dockerfile.problems.join("; ") });
  const changed = changedFiles(benchCase.input_path, workspacePath);
  const collateral = changed.filter((path) => !facts.allowed_files.includes(path));
  if (collateral.length > 0) {
    findings.push({
      code: "collateral_change",
      severity: "warn",
      detail: `changed outside the Dockerfile: ${collateral.join(", ")}`,
    });
    breakdown.scope_clean = 0;
  }
  if (changed.length === 0)
    notes.push({ code: "no_change", severity: "info", detail: "the workspace is identical to the input" });
  return result(breakdown, [...findings, ...notes]);
}

const rubric: Rubric = {
  score(benchCase, harnessOutput, context) {
    return scoreCase(benchCase, harnessOutput, context.workspacePath);
  },
};

export default rubric;

if (import.meta.main) await runRubric(rubric);
