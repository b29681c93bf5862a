import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isEvalError } from "@eval/errors";
import type { EvalWarning } from "@eval/errors";
import { TranscriptSchema } from "@eval/models";
import { describe, expect, it } from "vitest";
import {
  createTranscriptParser,
  parseTranscriptFile,
  readTranscriptJsonl,
  resolveStreamLogOption,
  stampTranscript,
  summarizeTranscript,
  transcriptLine,
  writeTranscriptJsonl,
} from "./index.ts";

const fixtures = join(import.meta.dirname, "__fixtures__");

describe("transcript JSONL", () => {
  it("one schema-versioned line per case invocation, stamped with case id and tag", async () => {
    const transcript = await parseTranscriptFile(
      "claude-stream-json",
      join(fixtures, "claude.stream-json.sample.jsonl"),
    );
    const line = transcriptLine(transcript, {
      case_id: "001-x",
      invocation_tag: "bench:t:vuln:001-x",
      written_at: "2026-11-22T03:00:00Z",
    });
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    const parsed = TranscriptSchema.parse(JSON.parse(line));
    expect(parsed).toMatchObject({
      schema_version: "evalgate.transcript.v1",
      case_id: "001-x",
      invocation_tag: "bench:t:vuln:001-x",
      written_at: "2026-11-22T03:00:00Z",
    });
    expect(stampTranscript(transcript).written_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("appends lines (creating directories, mode 0600) and reads them back validated", async () => {
    const dir = mkdtempSync(join(tmpdir(), "transcripts-"));
    const path = join(dir, "nested", "run.transcript.jsonl");
    const a = await parseTranscriptFile("gemini-stream-json", join(fixtures, "gemini.stream-json.sample.jsonl"));
    const b = createTranscriptParser("codex-exec-json").end();
    await writeTranscriptJsonl(path, a, { case_id: "a" });
    await writeTranscriptJsonl(path, b, { case_id: "b" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const back = await readTranscriptJsonl(path);
    expect(back.map((transcript) => transcript.case_id)).toEqual(["a", "b"]);
    expect(back[0]?.tool_calls).toEqual(a.tool_calls);
    expect(Object.isFrozen(back[0]?.tool_calls)).toBe(true);
  });

  it("reports a bad line by number, and I/O failures as EVAL_IO", async () => {
    const dir = mkdtempSync(join(tmpdir(), "transcripts-"));
    const valid = transcriptLine(createTranscriptParser("gemini-stream-json").end());
    const notJson = join(dir, "not-json.jsonl");
    writeFileSync(notJson, `${valid}\n{oops\n`);
    await expect(readTranscriptJsonl(notJson)).rejects.toThrow(`${notJson}:3 is not JSON`);
    const invalid = join(dir, "invalid.jsonl");
    writeFileSync(invalid, `${JSON.stringify({ ...JSON.parse(valid), schema_version: "v0", extra: 1 })}\n`);
    const error = await readTranscriptJsonl(invalid).catch((caught: unknown) => caught);
    expect(isEvalError(error) && error.code).toBe("EVAL_TRANSCRIPT_INVALID");
    expect((error as Error).message).toMatch(/invalid\.jsonl:1: .*schema_version/);
    const missing = await readTranscriptJsonl(join(dir, "absent.jsonl")).catch((caught: unknown) => caught);
    expect(isEvalError(missing) && missing.code).toBe("EVAL_IO");
    const blocked = join(dir, "file");
    writeFileSync(blocked, "");
    const unwritable = await writeTranscriptJsonl(
      join(blocked, "x.jsonl"),
      createTranscriptParser("gemini-stream-json").end(),
    ).catch((caught: unknown) => caught);
    expect(isEvalError(unwritable) && unwritable.code).toBe("EVAL_IO");
    expect(readFileSync(blocked, "utf8")).toBe("");
  });
});

describe("stream_log and the deprecated log_format", () => {
  const collect = () => {
    const warnings: EvalWarning[] = [];
    return { warnings, sink: (warning: EvalWarning) => warnings.push(warning) };
  };

  it("defaults to no stream log, and passes stream_log through without warnings", () => {
    const { warnings, sink } = collect();
    expect(resolveStreamLogOption({}, sink)).toBe(false);
    expect(resolveStreamLogOption({ stream_log: "raw" }, sink)).toBe("raw");
    expect(resolveStreamLogOption({ stream_log: "summary" }, sink)).toBe("summary");
    expect(resolveStreamLogOption({ stream_log: false }, sink)).toBe(false);
    expect(warnings).toEqual([]);
  });

  it("maps log_format json -> raw and summary -> summary, with exactly one warning each", () => {
    for (const [logFormat, expected] of [
      ["json", "raw"],
      ["summary", "summary"],
    ] as const) {
      const { warnings, sink } = collect();
      expect(resolveStreamLogOption({ log_format: logFormat }, sink)).toBe(expected);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ code: "config.deprecated_log_format" });
      expect(warnings[0]?.message).toContain(`use stream_log: "${expected}"`);
    }
  });

  it("lets stream_log win when both are set, still warning once; works without a sink", () => {
    const { warnings, sink } = collect();
    expect(resolveStreamLogOption({ stream_log: false, log_format: "json" }, sink)).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain("log_format ignored");
    expect(resolveStreamLogOption({ log_format: "json" })).toBe("raw");
  });

  it("rejects values it does not know with a config error", () => {
    const bad = [
      () => resolveStreamLogOption({ log_format: "xml" as "json" }),
      () => resolveStreamLogOption({ stream_log: "json" as "raw" }),
    ];
    for (const call of bad) {
      let caught: unknown;
      try {
        call();
      } catch (error) {
        caught = error;
      }
      expect(isEvalError(caught) && caught.code).toBe("EVAL_CONFIG_INVALID");
    }
  });
});

describe("summarizeTranscript", () => {
  it("names the source, tool calls by name, usage, drift and errors", async () => {
    const transcript = await parseTranscriptFile("copilot-events-jsonl", join(fixtures, "copilot-cli.events.jsonl"));
    const lines = summarizeTranscript(transcript);
    expect(lines[0]).toBe(
      "copilot copilot-events-jsonl session 10fb4666-56f0-4352-90fc-715caf95b418 model claude-sonnet-4.6",
    );
    expect(lines[1]).toBe("11 messages, 68 tool calls: Bash 61, stop_bash 4, Edit 1, Read 1, read_bash 1");
    expect(lines).toHaveLength(3);
    const parser = createTranscriptParser("claude-stream-json");
    parser.push('{"type":"nope"}');
    parser.push('{"type":"result","is_error":true,"result":"Not logged in","total_cost_usd":0.5}');
    parser.push("{trunc");
    const drifted = summarizeTranscript(parser.end());
    expect(drifted[0]).toBe("claude-code claude-stream-json");
    expect(drifted[1]).toBe("0 messages, 0 tool calls");
    expect(drifted[2]).toContain("cost $0.5");
    expect(drifted[3]).toBe(
      "drift: unknown event types nope ×1; 1 unparseable lines (last line truncated); 0 missing fields",
    );
    expect(drifted[4]).toBe("errors: Not logged in");
    const clean = createTranscriptParser("gemini-stream-json");
    clean.push("garbage");
    expect(summarizeTranscript(clean.end())[3]).toBe(
      "drift: no unknown event types; 1 unparseable lines (last line truncated); 0 missing fields",
    );
  });
});
