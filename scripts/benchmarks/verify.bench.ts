// `verifyChain` over 10,000 records against reading + JSON.parse of the same files, same run
// (goal: verify under 1 s; the seed quoted 50 ms for 365 records, i.e. ~1.4 s at this size).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Imported by path: the repo root does not depend on workspace packages. Run `pnpm build` first.
import { buildChainRecord, verifyChain, verifyChainLinks } from "../../packages/audit-chain/src/index.ts";
import type { BenchRow } from "../bench.ts";
import { median } from "./timing.ts";

const RECORDS = 10_000;
const CASES = 10;
const HOST = "5f0c7e1a-3b7d-4c1e-9a55-0b6f6f0f2a11";
const GENESIS = `sha256:${"0".repeat(64)}`;

/** A report shaped like a real 10-case run: breakdowns, failure modes, mixed curation classes. */
export function report(index: number, prevHash: string, host = HOST) {
  const digest = (seed: string) => `blake3:${seed.repeat(64).slice(0, 64)}`;
  return {
    schema_version: "evalgate.bench_run_report.v3" as const,
    run_id: `2026-11-22T03-00-00Z-${index.toString(16).padStart(6, "0")}`,
    task_class: "vuln-remediation",
    harness_version: "0.1.0",
    sut_label: "replay",
    sut_digest: digest("a1"),
    rubric_digest: digest("b2"),
    cassette_corpus_digest: digest("c3"),
    host_fingerprint: host,
    isolation_class: "subprocess-permission" as const,
    sut_isolation: "harness" as const,
    started_at: "2026-11-22T03:00:00Z",
    ended_at: "2026-11-22T03:00:05Z",
    complete: index % 50 !== 0,
    incomplete_reason: index % 50 !== 0 ? null : ("cancelled" as const),
    selection: {
      scope: "full" as const,
      filter: null,
      task_class_case_count: CASES,
      selected_case_count: CASES,
      selected_case_ids_digest: digest("e5"),
    },
    case_count: CASES,
    per_case: Array.from({ length: CASES }, (_, c) => ({
      case_id: `${String(c).padStart(3, "0")}-advisory-${c}`,
      curation_class: c < 5 ? ("rag-corpus-derived" as const) : ("held-out" as const),
      score: {
        passed: (index + c) % 4 !== 0,
        score: ((index * 7 + c * 13) % 100) / 100,
        breakdown: { resolved: 1, collateral: 0.75, tests_pass: 0.5, minimal_diff: 0.25 },
        failure_modes:
          (index + c) % 4 === 0
            ? [{ code: "still_vulnerable", severity: "block" as const, detail: "lockfile still resolves 7.5.1" }]
            : [],
        cost_usd: 0.0123,
        wall_clock_ms: 1000 + c,
      },
    })),
    score_kind: "graded" as const,
    mean_score: 0.61,
    score_stddev: 0.28,
    lower_bound_95: 0.47,
    lower_bound_method: "betting" as const,
    bound_quantity: "mean_score" as const,
    trials_per_case: 1,
    reliability: { case_count: CASES, pass_at_1: 0.75, pass_at_k: 0.75, pass_hat_k: 0.75, flaky_case_ids: [] },
    harness_error_count: 0,
    harness_errored_case_ids: [],
    failed_trial_count: 2,
    informational: {
      bca_lower_bound_95: 0.5,
      bootstrap_resamples: 10_000,
      bootstrap_seed: digest("d4"),
      wilson_lower_bound_95: 0.42,
    },
    passed_count: 7,
    total_cost_usd: 0.123,
    block_severity_failure_modes: index % 4 === 0 ? ["still_vulnerable"] : [],
    prev_hash: prevHash,
    chain_head: null,
  };
}

export default async function verifyBench(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "verify-bench-"));
  try {
    let prev = GENESIS;
    const start = Date.parse("2026-01-01T00:00:00.000Z");
    let bytes = 0;
    for (let index = 0; index < RECORDS; index += 1) {
      const built = await buildChainRecord(report(index, prev), {
        prevHash: prev,
        sequence: index,
        recordedAt: new Date(start + index * 60_000).toISOString(),
        hostFingerprint: HOST,
      });
      writeFileSync(join(dir, built.fileName), built.text, { mode: 0o600 });
      bytes += built.text.length;
      prev = built.record.chain_hash;
    }
    const baseline = () => {
      const t = performance.now();
      for (const name of readdirSync(dir)) JSON.parse(readFileSync(join(dir, name), "utf8"));
      return performance.now() - t;
    };
    const verify = async (strict: boolean) => {
      const t = performance.now();
      const result = await verifyChain({ runsDir: dir, strict });
      if (!result.ok || result.records !== RECORDS)
        throw new Error(`verify failed: ${JSON.stringify(result.firstBad)}`);
      return performance.now() - t;
    };
    const linksPass = async () => {
      const t = performance.now();
      const result = await verifyChainLinks(dir);
      if (!result.ok || result.records !== RECORDS) throw new Error(`links failed: ${JSON.stringify(result.firstBad)}`);
      return performance.now() - t;
    };
    const base: number[] = [];
    const plain: number[] = [];
    const strict: number[] = [];
    const links: number[] = [];
    for (let round = 0; round < Number(process.env.BENCH_ROUNDS ?? 5); round += 1) {
      base.push(baseline());
      plain.push(await verify(false));
      strict.push(await verify(true));
      links.push(await linksPass());
    }
    const [b, v, s, l] = [median(base), median(plain), median(strict), median(links)];
    const label = `${RECORDS} records, ${CASES} cases each, ${(bytes / RECORDS / 1024).toFixed(1)} KiB avg`;
    return [
      { benchmark: "verify", measure: `read + JSON.parse, ${label} (median of 5)`, value: `${b.toFixed(0)} ms` },
      {
        benchmark: "verify",
        measure: "verifyChain (median of 5)",
        value: `${v.toFixed(0)} ms`,
        goal: "< 1000 ms",
        ok: v < 1000,
      },
      {
        benchmark: "verify",
        measure: "verifyChain --strict, adds full schema validation (median of 5)",
        value: `${s.toFixed(0)} ms`,
      },
      { benchmark: "verify", measure: "verifyChain / baseline", value: `${(v / b).toFixed(2)}x` },
      {
        benchmark: "verify",
        measure: "verifyChainLinks, a lost checkpoint's rebuild (median of 5)",
        value: `${l.toFixed(0)} ms, ${(l / v).toFixed(2)}x of verifyChain`,
        goal: "<= 0.6x of verifyChain",
        ok: l / v <= 0.6,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
