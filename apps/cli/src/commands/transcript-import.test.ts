import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TranscriptSchema } from "@eval/models";
import { describe, expect, it } from "vitest";
import { invoke } from "../test-helpers.ts";

// Real session logs (copied from the shared fixtures into the tool-normalize package).
const fixtures = join(import.meta.dirname, "..", "..", "..", "..", "packages", "tool-normalize", "src", "__fixtures__");
const dir = mkdtempSync(join(tmpdir(), "transcript-import-"));

describe("evalgate transcript import", () => {
  it("writes one transcript line on stdout and counts by canonical name on stderr", async () => {
    const result = await invoke([
      "transcript",
      "import",
      "--provider",
      "claude-code",
      join(fixtures, "claude-code.session.jsonl"),
    ]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    const transcript = TranscriptSchema.parse(JSON.parse(lines[0]!));
    expect(transcript.source.format).toBe("claude-session-jsonl");
    expect(transcript.counts).toEqual({ Bash: 12, Read: 3, Glob: 1, Edit: 1 });
    expect(result.stderr).toContain("17 tool calls: Bash 12, Read 3, Edit 1, Glob 1");
  });

  it("detects each provider's format, and honours --format and --case-id", async () => {
    const rollout = await invoke([
      "transcript",
      "import",
      "--provider",
      "codex",
      join(fixtures, "codex.rollout.jsonl"),
    ]);
    expect(JSON.parse(rollout.stdout).source.format).toBe("codex-rollout-jsonl");
    const exec = await invoke([
      "transcript",
      "import",
      "--provider",
      "codex",
      join(fixtures, "codex.exec-json.sample.jsonl"),
    ]);
    expect(JSON.parse(exec.stdout).source.format).toBe("codex-exec-json");
    const stream = await invoke([
      "transcript",
      "import",
      "--provider",
      "claude-code",
      join(fixtures, "claude.stream-json.sample.jsonl"),
    ]);
    expect(JSON.parse(stream.stdout).source.format).toBe("claude-stream-json");
    const copilot = await invoke([
      "transcript",
      "import",
      "--provider",
      "copilot",
      "--format",
      "copilot-events-jsonl",
      "--case-id",
      "c-1",
      join(fixtures, "copilot-cli.events.jsonl"),
    ]);
    expect(JSON.parse(copilot.stdout)).toMatchObject({ case_id: "c-1", counts: { Bash: 61, Read: 1, Edit: 1 } });
  });

  it("resolves a relative file against the working directory", async () => {
    const result = await invoke(["transcript", "import", "--provider", "gemini", "gemini.stream-json.sample.jsonl"], {
      cwd: fixtures,
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).source.labels).toEqual({ path: "gemini.stream-json.sample.jsonl" });
  });

  const oneLineError = async (argv: string[], pattern: RegExp) => {
    const result = await invoke(argv);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(pattern);
    expect(result.stderr).not.toContain("    at ");
  };

  it("a missing file: one line, exit 1", async () => {
    await oneLineError(
      ["transcript", "import", "--provider", "copilot", join(dir, "absent.jsonl")],
      /cannot read transcript .*absent\.jsonl: does not exist \(EVAL_IO\)/,
    );
    await oneLineError(
      ["transcript", "import", "--provider", "codex", join(dir, "absent.jsonl")],
      /does not exist \(EVAL_IO\)/,
    );
  });

  it("a file that is not the provider's log: one line naming the format, exit 1", async () => {
    const garbage = join(dir, "garbage.bin");
    writeFileSync(garbage, Buffer.from([0xff, 0xfe, 0x00, 0x0a, 0x41, 0x0a]));
    await oneLineError(
      ["transcript", "import", "--provider", "gemini", garbage],
      /is not a gemini-stream-json log: 0 of 0 events .*\(EVAL_TRANSCRIPT_INVALID\)/,
    );
    await oneLineError(
      ["transcript", "import", "--provider", "copilot", join(fixtures, "codex.rollout.jsonl")],
      /is not a copilot-events-jsonl log/,
    );
  });

  it("a Claude stream whose result line was cut: the per-message usage, marked partial", async () => {
    const text = readFileSync(join(fixtures, "claude.stream-json.sample.jsonl"), "utf8").trimEnd();
    const cut = join(dir, "claude-cut.jsonl");
    writeFileSync(cut, text.slice(0, text.lastIndexOf("\n") + 60));
    const result = await invoke(["transcript", "import", "--provider", "claude-code", cut]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      source: { format: "claude-stream-json" },
      usage: { input_tokens: 2490, output_tokens: 57, partial: true },
    });
    expect(result.stderr).toContain(
      "tokens in 2490 out 57 cache read 0 write 0 (partial: the stream ended before its totals)",
    );
  });

  it("a Gemini log named as any other agent's: the same one-line error and exit 1 (claude-code used to exit 0)", async () => {
    const gemini = join(fixtures, "gemini.stream-json.sample.jsonl");
    for (const provider of ["claude-code", "codex", "copilot", "pi"]) {
      await oneLineError(
        ["transcript", "import", "--provider", provider, gemini],
        /gemini\.stream-json\.sample\.jsonl is not a [a-z-]+ log: [01] of 7 events are [a-z-]+ events \(7 lines read, 0 not JSON\) \(EVAL_TRANSCRIPT_INVALID\)/,
      );
    }
  });

  it("reads Pi JSON mode, the Codex app-server and Copilot over ACP, detected or named as the provider", async () => {
    const recorded = join(fixtures, "agentv-recorded");
    const pi = await invoke([
      "transcript",
      "import",
      "--provider",
      "pi",
      join(recorded, "pi.json-mode.fizzbuzz.jsonl"),
    ]);
    expect(pi.code).toBe(0);
    expect(JSON.parse(pi.stdout)).toMatchObject({
      source: { format: "pi-json", provider: "pi" },
      usage: { input_tokens: 8556, output_tokens: 191 },
      turns: 1,
    });
    const appServer = await invoke([
      "transcript",
      "import",
      "--provider",
      "codex",
      join(recorded, "codex.app-server.live-marker.jsonl"),
    ]);
    expect(JSON.parse(appServer.stdout)).toMatchObject({
      source: { format: "codex-app-server", provider: "codex" },
      usage: { input_tokens: 17_564, output_tokens: 37, cache_read_tokens: 3456 },
    });
    expect(appServer.stderr).toContain("tokens in 17564 out 37 cache read 3456 write ?; 1 turn; duration 5814 ms");
    const acp = await invoke([
      "transcript",
      "import",
      "--provider",
      "copilot-acp",
      join(recorded, "copilot.acp.live-marker.jsonl"),
    ]);
    expect(JSON.parse(acp.stdout)).toMatchObject({
      source: { format: "copilot-acp", provider: "copilot", model: "gpt-5.4-mini" },
    });
    const built = await invoke([
      "transcript",
      "import",
      "--provider",
      "codex-app-server",
      "--format",
      "codex-app-server",
      join(fixtures, "built", "codex.app-server.tools.built.jsonl"),
    ]);
    expect(built.stderr).toContain(
      "9 tool calls: Bash 2, Edit 1, Read 1, Skill 1, WebSearch 1, Write 1, lookup_ticket 1, mcp:docs/search 1",
    );
  });

  it("bad flags: unknown provider or format, a format of another provider, two formats, empty case id", async () => {
    const file = join(fixtures, "gemini.stream-json.sample.jsonl");
    await oneLineError(
      ["transcript", "import", "--provider", "cursor", file],
      /unknown --provider "cursor" \(EVAL_USAGE\); choose one of: claude-code, codex/,
    );
    await oneLineError(
      ["transcript", "import", "--provider", "gemini", "--format", "xml", file],
      /unknown --format "xml"/,
    );
    await oneLineError(
      ["transcript", "import", "--provider", "gemini", "--format", "codex-exec-json", file],
      /--format codex-exec-json is not a gemini format .*gemini writes: gemini-stream-json/,
    );
    await oneLineError(
      ["transcript", "import", "--provider", "pi", "--format", "codex-exec-json", file],
      /is not a pi format .*pi writes: pi-json/,
    );
    await oneLineError(
      ["transcript", "import", "--provider", "pi-json", "--format", "codex-exec-json", file],
      /--provider pi-json names a format, and --format codex-exec-json another/,
    );
    await oneLineError(
      ["transcript", "import", "--provider", "gemini", "--case-id", " ", file],
      /--case-id must not be empty/,
    );
  });

  it("is listed in --help", async () => {
    expect((await invoke(["--help"])).stdout).toContain("evalgate transcript import");
  });
});
