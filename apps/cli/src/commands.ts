import type { CommandClass } from "clipanion";
import type { EvalgateContext } from "./context.ts";
import { RUN_DEFAULTS } from "@eval/models/defaults";

/**
 * One command: its path, its line in `evalgate --help`, and how to load its class. The category and
 * description repeat the class's own usage (commands.test.ts holds them equal), so that listing every
 * command loads none of them.
 */
export interface CommandEntry {
  readonly path: readonly string[];
  readonly category: string;
  readonly description: string;
  readonly load: () => Promise<CommandClass<EvalgateContext>>;
}

/** Every command, one file each under commands/. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    path: ["adapters", "compliance-check"],
    category: "Agents",
    description:
      "Run the 20-task benign suite live against an agent CLI and write the compliance report the backend requires",
    load: async () => (await import("./commands/adapters-compliance-check.ts")).AdaptersComplianceCheckCommand,
  },
  {
    path: ["adapters", "doctor"],
    category: "Agents",
    description:
      "Check each agent CLI: binary found, version, logged in (the CLI's own check), compliance report fresh",
    load: async () => (await import("./commands/adapters-doctor.ts")).AdaptersDoctorCommand,
  },
  {
    path: ["adapters", "list"],
    category: "Agents",
    description: "List the agent-CLI adapters, what each needs, and whether its binary is on PATH",
    load: async () => (await import("./commands/adapters-list.ts")).AdaptersListCommand,
  },
  {
    path: ["anchor"],
    category: "Audit",
    description: "Write the audit chain's head to an anchor file kept outside the state directory",
    load: async () => (await import("./commands/anchor.ts")).AnchorCommand,
  },
  {
    path: ["attest"],
    category: "Audit",
    description: "Write a run's signed in-toto attestation (DSSE envelope), or check one against the chain",
    load: async () => (await import("./commands/attest.ts")).AttestCommand,
  },
  {
    path: ["bench", "list"],
    category: "Bench",
    description: "List the registered task classes, or one task class's cases",
    load: async () => (await import("./commands/bench-list.ts")).BenchListCommand,
  },
  {
    path: ["bench", "show"],
    category: "Bench",
    description: "Show one case: its case.toml, paths and verified digest",
    load: async () => (await import("./commands/bench-show.ts")).BenchShowCommand,
  },
  {
    path: ["bench", "sign"],
    category: "Bench",
    description: "Recompute every case digest after curation, rewrite cases/digests.yaml, print what changed",
    load: async () => (await import("./commands/bench-sign.ts")).BenchSignCommand,
  },
  {
    path: ["bench", "check"],
    category: "Bench",
    description: "Prove every case solvable and its rubric sensitive: reference fix, no-op and near misses",
    load: async () => (await import("./commands/bench-check.ts")).BenchCheckCommand,
  },
  {
    path: ["cache", "gc"],
    category: "Cache",
    description: `Remove cache entries older than N days (default ${RUN_DEFAULTS.cacheRetentionDays}) and temp files left by killed writers`,
    load: async () => (await import("./commands/cache-gc.ts")).CacheGcCommand,
  },
  {
    path: ["cache", "stats"],
    category: "Cache",
    description: "Show the score cache: entries, bytes, oldest and newest entry, orphaned temp files",
    load: async () => (await import("./commands/cache-stats.ts")).CacheStatsCommand,
  },
  {
    path: ["completion"],
    category: "Setup",
    description: "Print the shell completion script for bash, zsh or fish",
    load: async () => (await import("./commands/completion.ts")).CompletionCommand,
  },
  {
    path: ["compare"],
    category: "Audit",
    description: "Compare two recorded runs of one task class, case by case: the lower bound on the improvement",
    load: async () => (await import("./commands/compare.ts")).CompareCommand,
  },
  {
    path: ["fence"],
    category: "Bench",
    description: "Check every task class under the bench root against the bench contract",
    load: async () => (await import("./commands/fence.ts")).FenceCommand,
  },
  {
    path: ["gc"],
    category: "Cache",
    description: "Remove what killed runs left: temp dirs, detail directories of runs never chained, stale cache files",
    load: async () => (await import("./commands/gc.ts")).GcCommand,
  },
  {
    path: ["init"],
    category: "Bench",
    description: "Scaffold a task class in this repository: config, bench, rubric, one example case, trust tiers",
    load: async () => (await import("./commands/init.ts")).InitCommand,
  },
  {
    path: ["key", "generate"],
    category: "Audit",
    description: "Create an Ed25519 signing key for records, bundles and anchors; print its public key to declare",
    load: async () => (await import("./commands/key-generate.ts")).KeyGenerateCommand,
  },
  {
    path: ["merge"],
    category: "Run",
    description: "Merge shard bundles of one plan into one run and append it to the audit chain",
    load: async () => (await import("./commands/merge.ts")).MergeCommand,
  },
  {
    path: ["model-stub"],
    category: "Agents",
    description: "Serve a scripted model endpoint on loopback for agent CLIs, answering from a scenario file",
    load: async () => (await import("./commands/model-stub.ts")).ModelStubCommand,
  },
  {
    path: ["plan"],
    category: "Run",
    description: "Write a deterministic run plan that shards can run on any machine",
    load: async () => (await import("./commands/plan.ts")).PlanCommand,
  },
  {
    path: ["promote-verdict"],
    category: "Audit",
    description: "Emit a read-only promotion verdict for a task class from its recorded runs",
    load: async () => (await import("./commands/promote-verdict.ts")).PromoteVerdictCommand,
  },
  {
    path: ["report"],
    category: "Audit",
    description: "Write one self-contained HTML report of a recorded run",
    load: async () => (await import("./commands/report.ts")).ReportCommand,
  },
  {
    path: ["rescore"],
    category: "Run",
    description: "Score a recorded run's outputs again with the current rubric, without calling its SUT",
    load: async () => (await import("./commands/rescore.ts")).RescoreCommand,
  },
  {
    path: ["run"],
    category: "Run",
    description:
      "Run a task class's bench against a system under test, score it, and append the run to the audit chain",
    load: async () => (await import("./commands/run.ts")).RunCommand,
  },
  {
    path: ["runs"],
    category: "Audit",
    description: "List the recorded runs, newest first",
    load: async () => (await import("./commands/runs.ts")).RunsCommand,
  },
  {
    path: ["schemas"],
    category: "Contracts",
    description: "List the wire types, or print one's JSON Schema (for rubrics and SUTs in other languages)",
    load: async () => (await import("./commands/schemas.ts")).SchemasCommand,
  },
  {
    path: ["show"],
    category: "Audit",
    description: "Show a recorded run, or one of its cases, in the terminal",
    load: async () => (await import("./commands/show.ts")).ShowCommand,
  },
  {
    path: ["transcript", "import"],
    category: "Transcripts",
    description: "Normalize an agent's session log into one transcript JSONL line (canonical tool names)",
    load: async () => (await import("./commands/transcript-import.ts")).TranscriptImportCommand,
  },
  {
    path: ["verify"],
    category: "Audit",
    description: "Verify the audit chain of recorded runs and name the first bad file",
    load: async () => (await import("./commands/verify.ts")).VerifyCommand,
  },
];

/**
 * The command classes `argv` can reach: those whose first word is argv's first word, loaded. None when
 * argv starts with an option or an unknown word: then `listedCommands` stands in.
 */
export async function reachableCommands(argv: readonly string[]): Promise<Array<CommandClass<EvalgateContext>>> {
  // `completion` describes every command's options, so it reaches them all.
  const reached = argv[0] === "completion" ? COMMANDS : COMMANDS.filter((entry) => entry.path[0] === argv[0]);
  return Promise.all(reached.map((entry) => entry.load()));
}
