import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Runs recorded by evalgate before its hashing moved into @eval/hashing (fixtures/golden-v1, written by
 * scripts/record-golden.ts from real runs of both shipped benches). Golden tests recompute every digest
 * from these inputs with the current code and must get the recorded bytes.
 */
const GOLDEN_DIR = new URL("../fixtures/golden-v1/", import.meta.url).pathname;

export interface GoldenCase {
  readonly case_id: string;
  readonly case_digest: string;
  readonly cassette_canary_pin: string;
  readonly cache_key: string;
}

export interface GoldenRun {
  readonly record_file: string;
  readonly run_id: string;
  readonly task_class: string;
  readonly cases: readonly GoldenCase[];
  /** The chain record exactly as it was written. */
  readonly record: GoldenRecord;
}

export interface GoldenRecord {
  readonly prev_hash: string;
  readonly content_hash: string;
  readonly chain_hash: string;
  readonly report: GoldenReport;
}

export interface GoldenReport extends Readonly<Record<string, unknown>> {
  readonly task_class: string;
  readonly score_kind: "binary" | "graded";
  readonly sut_label: string;
  readonly sut_digest: string;
  readonly rubric_digest: string;
  readonly cassette_corpus_digest: string;
  readonly harness_version: string;
  readonly isolation_class: string;
  readonly sut_isolation: string;
  readonly lower_bound_95: number;
  readonly selection: { readonly selected_case_ids_digest: string };
  readonly informational: { readonly bootstrap_seed: string; readonly bca_lower_bound_95: number | null };
  readonly per_case: readonly {
    readonly case_id: string;
    readonly score: { readonly score: number; readonly passed: boolean };
  }[];
}

/** The golden runs, oldest first, each with its chain record. */
export function goldenRuns(): readonly GoldenRun[] {
  const { runs } = JSON.parse(readFileSync(join(GOLDEN_DIR, "runs.json"), "utf8")) as {
    runs: Omit<GoldenRun, "record">[];
  };
  return runs.map((run) => ({
    ...run,
    record: JSON.parse(readFileSync(join(GOLDEN_DIR, "state", "runs", run.record_file), "utf8")) as GoldenRecord,
  }));
}

/** The head of the golden chain, as `evalgate verify` printed it when the chain was written. */
export const GOLDEN_CHAIN_HEAD = "sha256:c2213cf8f797c5c4b968b73102e8dfdb00c26f98a14064cc4029685cf7ee720c";

/** A fresh copy of the golden state dir (a chain of three records) in a temporary directory. */
export function copyGoldenState(): string {
  const dir = mkdtempSync(join(tmpdir(), "evalgate-golden-"));
  cpSync(join(GOLDEN_DIR, "state"), dir, { recursive: true });
  return dir;
}
