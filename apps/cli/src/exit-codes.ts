import type { EvalErrorCode } from "@eval/errors";

/** The exit-code partition (docs/cli.md). CI scripts branch on these: never renumber. */
export const ExitCode = {
  ok: 0,
  harnessError: 1,
  costCap: 2,
  taskClassNotRegistered: 3,
  benchDirectoryMissing: 4,
  chainTamper: 5,
  caseDigestMismatch: 6,
  noCasesSelected: 7,
  /** Every case of a recorded run failed for a harness or SUT-infrastructure reason, or its rubric failed on most: nothing was scored. */
  allCasesErrored: 8,
  /** Shard bundles that cannot make one run: edited, from different plans, or conflicting. */
  bundlesRejected: 9,
  /** A merge without every unit of its plan (rerun the missing shards, or --allow-incomplete). */
  unitsMissing: 10,
  /** A merge's --expect-head is no longer the chain's head. */
  chainMoved: 11,
  /** `compare --fail-on-regression <margin>`: the lower bound on the candidate's improvement is below the margin. */
  comparisonRegression: 12,
  /** 128 + the signal's number: the run was stopped by Ctrl-C or SIGTERM and recorded as incomplete. */
  interruptedSigint: 130,
  interruptedSigterm: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

interface ErrorPresentation {
  readonly exitCode: ExitCode;
  /** Shown when the error carries no hint of its own. */
  readonly hint: string;
}

/**
 * The one place where error codes become exit codes and hints. Typed as a Record over every code, so
 * adding a code to @eval/errors without deciding its exit code here fails to compile.
 */
export const ERROR_PRESENTATION: Readonly<Record<EvalErrorCode, ErrorPresentation>> = {
  EVAL_CONFIG_INVALID: { exitCode: 1, hint: "fix the named setting in flags, EVALGATE_* env, or evalgate.config.json" },
  EVAL_USAGE: { exitCode: 1, hint: "run `evalgate <command> --help` for the accepted flags" },
  EVAL_CASE_LOAD_FAILED: { exitCode: 1, hint: "fix the named file and field; `evalgate fence` checks every bench" },
  EVAL_CASE_ID_COLLISION: { exitCode: 1, hint: "give each case a unique case_id equal to its directory name" },
  EVAL_CASE_UNSAFE_PATH: { exitCode: 1, hint: "remove symlinks and out-of-tree paths from the case directory" },
  EVAL_TASK_CLASS_ALREADY_REGISTERED: {
    exitCode: 1,
    hint: "each task-class name may be registered once: rename one of them",
  },
  EVAL_TASK_CLASS_INCOMPLETE: {
    exitCode: 1,
    hint: "add the missing file named above; docs/bench-authoring.md lists the contract",
  },
  EVAL_TASK_CLASS_INVALID: {
    exitCode: 1,
    hint: "fix the named file as described; docs/bench-authoring.md lists the contract",
  },
  EVAL_FENCE_FAILED: { exitCode: 1, hint: "fix each path listed above, then rerun `evalgate fence`" },
  EVAL_SUT_INVALID: { exitCode: 1, hint: "use --sut replay | module:<path>#<export> | command:<argv> | cli:<adapter>" },
  EVAL_TIER_CONFIG_INVALID: { exitCode: 1, hint: "fix docs/trust-tiers.yaml (a reviewed change)" },
  EVAL_REPORT_NOT_FOUND: { exitCode: 1, hint: "run `evalgate run` first, or pass --report <path>" },
  EVAL_REPORT_INVALID: { exitCode: 1, hint: "pass a report written by `evalgate run`" },
  EVAL_CHAIN_CONFLICT: { exitCode: 1, hint: "another run appended to the chain first: rerun this one" },
  EVAL_PROMOTION_MUST_BE_HUMAN_AUTHORIZED: {
    exitCode: 1,
    hint: "promote by a reviewed change to docs/trust-tiers.yaml",
  },
  EVAL_TRANSCRIPT_INVALID: { exitCode: 1, hint: "check --provider matches the file's format" },
  EVAL_ADAPTER_NOT_OPTED_IN: { exitCode: 1, hint: "pass --allow-cli-subscription and --acknowledge-unsandboxed-cli" },
  EVAL_ADAPTER_BINARY_NOT_FOUND: {
    exitCode: 1,
    hint: "install the agent CLI or set its path; `evalgate adapters doctor` checks",
  },
  EVAL_ADAPTER_COMPLIANCE_MISSING: {
    exitCode: 1,
    hint: "run `evalgate adapters compliance-check --adapter <name>` first",
  },
  EVAL_ADAPTER_COMPLIANCE_FAILED: {
    exitCode: 1,
    hint: "see the trials' classification in the compliance report named above (auth_failure: log in; format_drift: the CLI's output changed)",
  },
  EVAL_ADAPTER_INVALID: { exitCode: 1, hint: "see docs/adapters.md" },
  EVAL_RESCORE_UNAVAILABLE: {
    exitCode: 1,
    hint: "run the SUT again with `evalgate run`: only runs whose workspaces the harness captured can be rescored",
  },
  EVAL_INIT_CONFLICT: { exitCode: 1, hint: "pick another --task-class, or remove the named directory first" },
  EVAL_PLAN_INVALID: {
    exitCode: 1,
    hint: "pass the file `evalgate plan` wrote, whole and unedited, or write a fresh one with `evalgate plan --task-class <name>`",
  },
  EVAL_ADAPTER_TRIAL_FAILED: {
    exitCode: 1,
    hint: "see the trial's backend_metadata and the CLI's stderr; `evalgate adapters doctor` checks login",
  },
  EVAL_CASSETTE_INVALID: {
    exitCode: 1,
    hint: "re-record the cassette with `evalgate run --sut cli:<adapter> --record`",
  },
  EVAL_IO: { exitCode: 1, hint: "check the path exists and is readable/writable" },
  EVAL_SANDBOX_UNAVAILABLE: {
    exitCode: 1,
    hint: "install bubblewrap (sudo apt-get install bubblewrap), or pass --sandbox none to accept weaker isolation",
  },
  EVAL_NETWORK_UNAVAILABLE: {
    exitCode: 1,
    hint: "install slirp4netns (sudo apt-get install slirp4netns), or run without --sut-network",
  },
  EVAL_STATE_DIR_NOT_A_DIRECTORY: {
    exitCode: 1,
    hint: "point --out (or EVALGATE_STATE_DIR) at a directory, or at a path that does not exist yet",
  },
  EVAL_STATE_DIR_READ_ONLY: {
    exitCode: 1,
    hint: "make the state directory writable, or point --out (or EVALGATE_STATE_DIR) at a writable directory",
  },
  EVAL_COMPARE_MISMATCH: {
    exitCode: 1,
    hint: "compare two runs of one task class over the same cases (`evalgate runs --task-class <name>` lists the runs)",
  },
  EVAL_CASSETTES_TOO_FEW: {
    exitCode: 1,
    hint: "record as many sessions as trials (`run --sut cli:<adapter> --record --trials k`), or lower --trials",
  },
  EVAL_MODEL_KEY_MISSING: {
    exitCode: 1,
    hint: "export the provider's API key (docs/adapters.md names it), give --model-upstream for a keyless endpoint, or use a subscription login with --agent-network host and both opt-ins",
  },
  EVAL_SCENARIO_INVALID: { exitCode: 1, hint: "fix the scenario file; docs/adapters.md describes its fields" },
  EVAL_COST_CAP_EXCEEDED: { exitCode: 2, hint: "raise --max-cost-usd, or narrow --cases" },
  EVAL_TASK_CLASS_NOT_FOUND: { exitCode: 3, hint: "`evalgate bench list` shows the registered task classes" },
  EVAL_BENCH_DIR_MISSING: { exitCode: 4, hint: "create the bench directory, or point --bench-root at it" },
  EVAL_CHAIN_TAMPERED: { exitCode: 5, hint: "restore the named file from a backup or git; `evalgate verify` rechecks" },
  EVAL_HISTORY_INDEX_DISAGREES: {
    exitCode: 5,
    hint: "remove the named index; the next `evalgate runs` rebuilds it from the chain, and `evalgate verify --strict` rechecks",
  },
  EVAL_RECORD_TAMPERED: {
    exitCode: 5,
    hint: "a record's figures disagree with its per-case data: never edit records; rerun the task class",
  },
  EVAL_ATTESTATION_INVALID: {
    exitCode: 5,
    hint: "an attestation is checked as `evalgate attest` wrote it: rewrite it from the chain with `evalgate attest <run> --write <file>`",
  },
  EVAL_CASE_DIGEST_MISMATCH: {
    exitCode: 6,
    hint: "if the change is intended, run `evalgate bench sign` and commit digests.yaml",
  },
  EVAL_NO_CASES_SELECTED: {
    exitCode: 7,
    hint: "`evalgate bench list --task-class <name>` lists the case ids; fix --cases, or add cases",
  },
  EVAL_RUN_ALL_CASES_ERRORED: {
    exitCode: 8,
    hint: "the run is recorded; fix the SUT (`evalgate schemas sut-request`, docs/runner.md) and see runs/<run-id>/cases/ for each case's error",
  },
  EVAL_RUBRIC_BROKEN: {
    exitCode: 8,
    hint: "the run is recorded, but its rubric failed, not the SUT: see the rubric's stderr in runs/<run-id>/cases/<case>.json, fix the task class's rubric (`evalgate bench check --task-class <name>` scores its reference fixes), then rerun (no rubric failure is cached)",
  },
  EVAL_BUNDLE_TAMPERED: { exitCode: 9, hint: "rerun the named shard and merge its fresh bundle; never edit a bundle" },
  EVAL_PLAN_MISMATCH: {
    exitCode: 9,
    hint: "run every shard from the same plan file, on the same bench, SUT and evalgate version",
  },
  EVAL_UNIT_CONFLICT: {
    exitCode: 9,
    hint: "a shard ran twice with different results: keep one of its bundles (the SUT or rubric is not deterministic)",
  },
  EVAL_UNITS_MISSING: {
    exitCode: 10,
    hint: "run the missing shards and merge again, or pass --allow-incomplete (an incomplete run never supports a verdict)",
  },
  EVAL_CHAIN_MOVED: {
    exitCode: 11,
    hint: "another run appended since the head you expected: check it, then merge with the new head or without --expect-head",
  },
};
