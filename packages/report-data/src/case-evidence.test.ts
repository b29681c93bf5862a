import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CaseDetail, CaseResult } from "@eval/models";
import { reportCaseOf, TranscriptIndex, trialsOf } from "./case-evidence.ts";

const TAG = "bench:2026-11-01T00:00:00.000Z:demo:c-1";
const transcript = (tag: string | null, text: string) => ({
  schema_version: "evalgate.transcript.v1",
  source: {
    format: "codex-exec-json",
    provider: "codex",
    session_id: null,
    model: null,
    cli_version: null,
    labels: {},
  },
  case_id: "c-1",
  invocation_tag: tag,
  written_at: null,
  messages: [{ role: "assistant", text, truncated: false }],
  tool_calls: [],
  usage: { input_tokens: null, output_tokens: null, cache_read_tokens: null, cache_write_tokens: null },
  duration_ms: null,
  cost_usd: null,
  counts: {},
  errors: [],
  drift: { unknown_event_types: {}, unparseable_lines: 0, missing_fields: 0, truncated_last_line: false },
});
const score = { passed: false, score: 0.5, breakdown: {}, failure_modes: [], cost_usd: 0, wall_clock_ms: 5 };
const entry = (extra: Record<string, unknown> = {}) =>
  ({ case_id: "c-1", curation_class: "held-out", score, ...extra }) as unknown as CaseResult;
const detail = (sutOutput: Record<string, unknown> | null): CaseDetail =>
  ({
    schema_version: "evalgate.case_detail.v1",
    run_id: "r-1",
    task_class: "demo",
    case_id: "c-1",
    cache_key: `blake3:${"a".repeat(64)}`,
    invocation_tag: TAG,
    sut_output: sutOutput,
    sut_error: null,
    sut_wall_clock_ms: 3,
    rubric: null,
    score,
  }) as CaseDetail;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-case-evidence-"));
  await mkdir(join(root, "transcripts"));
  await writeFile(
    join(root, "transcripts", "demo.jsonl"),
    [
      JSON.stringify(transcript("other", "not this")),
      "{broken",
      JSON.stringify({ nope: 1 }),
      JSON.stringify(transcript(TAG, "from the log")),
      "",
    ].join("\n"),
  );
  await mkdir(join(root, "runs", "r-1", "cases"), { recursive: true });
  await writeFile(
    join(root, "runs", "r-1", "cases", "c-1.json"),
    JSON.stringify(detail({ diff: "--- a/x\n+++ b/x\n" })),
  );
  await mkdir(join(root, "runs", "r-2", "cases"), { recursive: true });
  await writeFile(join(root, "runs", "r-2", "cases", "c-1.json"), "{not json");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("case evidence", () => {
  it("takes the SUT's own transcript first, else the transcript log line with the invocation tag (skipping bad lines)", () => {
    const index = new TranscriptIndex(join(root, "transcripts"));
    expect(index.find("demo", detail({ transcript: transcript(null, "own") }))?.messages[0]?.text).toBe("own");
    expect(index.find("demo", detail({ transcript: { invalid: true } }))?.messages[0]?.text).toBe("from the log");
    expect(index.find("demo", detail(null))?.messages[0]?.text).toBe("from the log");
    expect(index.find("other-class", detail(null))).toBeNull();
  });

  it("reads the run's detail (diff, cache hit), and tolerates a missing or damaged one", () => {
    const transcripts = new TranscriptIndex(join(root, "transcripts"));
    const found = reportCaseOf(entry(), {
      runsDir: join(root, "runs"),
      runId: "partial:r-1",
      taskClass: "demo",
      blobsDir: join(root, "blobs"),
      transcripts,
      baseline: null,
    });
    expect(found).toMatchObject({
      cache_hit: false,
      evidence: { executed_in_run: "r-1", diff: "--- a/x\n+++ b/x\n", rubric_wall_clock_ms: null },
      baseline: null,
    });
    expect(found.transcript?.messages[0]?.text).toBe("from the log");
    const damaged = reportCaseOf(entry(), {
      runsDir: join(root, "runs"),
      runId: "r-2",
      blobsDir: join(root, "blobs"),
      taskClass: "demo",
      transcripts,
      baseline: entry(),
    });
    expect(damaged).toMatchObject({
      cache_hit: null,
      evidence: null,
      transcript: null,
      baseline: { score: 0.5, passed: false },
    });
  });

  it("reads k of n from a v3 case's trials; a one-trial case has none", () => {
    const failed = { ...score, passed: false };
    const passed = { ...score, passed: true, score: 1 };
    expect(trialsOf(entry({ trials: [passed, failed, passed] }))).toEqual({ passed: 2, total: 3 });
    expect(trialsOf(entry({ trials: [failed, failed] }))).toEqual({ passed: 0, total: 2 });
    expect(trialsOf(entry())).toBeNull();
  });
});
