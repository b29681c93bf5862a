import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { caseIds, cassetteMeta, loadCase, trialClassOf } from "./case-fixtures.ts";

const events = (caseId: string) =>
  readFileSync(join(loadCase(caseId).case_path, "cassette", "stdout.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("cassettes", () => {
  it.each(caseIds())("%s: metadata is valid, marked synthetic, and the stream has the CLI's framing", (caseId) => {
    const meta = cassetteMeta(loadCase(caseId));
    expect(meta.synthetic).toBe(true);
    const stream = events(caseId);
    if (meta.adapter === "claude-code") {
      expect(stream[0]).toMatchObject({ type: "system", subtype: "init", claude_code_version: meta.cli_version });
      expect(stream.at(-1)).toMatchObject({ type: "result", subtype: "success" });
      expect(meta.cost_usd).toBe((stream.at(-1) as { total_cost_usd: number }).total_cost_usd);
    } else if (meta.adapter === "codex") {
      expect(stream[0]!.type).toBe("thread.started");
      expect(stream.at(-1)!.type).toBe("turn.completed");
      expect(meta.cost_usd).toBeNull();
    } else {
      expect(stream[0]).toMatchObject({ type: "init", model: "auto" });
      expect(stream.at(-1)).toMatchObject({ type: "result", status: "success" });
      expect(meta.cost_usd).toBeNull();
    }
  });

  it("mix all three agents and the outcomes a verdict needs to see", () => {
    const adapters = new Set(caseIds().map((id) => cassetteMeta(loadCase(id)).adapter));
    expect([...adapters].sort()).toEqual(["claude-code", "codex", "gemini"]);
    const classes = caseIds().map((id) => trialClassOf(loadCase(id)));
    expect(classes.filter((c) => c === "model_refusal")).toHaveLength(1);
    expect(classes.filter((c) => c === "cli_error")).toHaveLength(1);
  });

  it("the auth failure has the shape the real Claude Code prints when logged out", () => {
    const stream = events("json5-proto-1x-cve-2022-46175");
    expect(stream[1]).toMatchObject({ type: "assistant", error: "authentication_failed", is_api_error_message: true });
    expect(stream[2]).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: true,
      terminal_reason: "api_error",
    });
    expect(cassetteMeta(loadCase("json5-proto-1x-cve-2022-46175")).exit_code).toBe(1);
  });

  it("tool calls are paired with their results", () => {
    for (const caseId of caseIds()) {
      const stream = events(caseId);
      const uses = stream.flatMap((e) =>
        e.type === "assistant"
          ? (e.message as { content: Array<{ type: string; id?: string }> }).content
              .filter((b) => b.type === "tool_use")
              .map((b) => b.id)
          : [],
      );
      const results = stream.flatMap((e) =>
        e.type === "user"
          ? (e.message as { content: Array<{ tool_use_id: string }> }).content.map((b) => b.tool_use_id)
          : [],
      );
      expect(results).toEqual(uses);
      const geminiUses = stream.filter((e) => e.type === "tool_use").map((e) => e.tool_id);
      expect(stream.filter((e) => e.type === "tool_result").map((e) => e.tool_id)).toEqual(geminiUses);
    }
  });

  it.each(caseIds())("%s: is stamped with the case's prompt plus its canary line", (caseId) => {
    const benchCase = loadCase(caseId);
    const meta = cassetteMeta(benchCase);
    expect(meta.prompt_sha256).not.toBe(`sha256:${"0".repeat(64)}`);
    const flag = meta.adapter === "claude-code" ? "--print" : meta.adapter === "gemini" ? "--prompt" : null;
    if (flag === null) return; // Codex reads its prompt on stdin: only the hash is recorded.
    const prompt = meta.argv_redacted[meta.argv_redacted.indexOf(flag) + 1]!;
    expect(prompt.startsWith(benchCase.prompt!)).toBe(true);
    expect(prompt).toMatch(/\[evalgate canary [0-9a-f]{32}: benchmark data, do not train on or repeat it\]\n$/);
    expect(`sha256:${createHash("sha256").update(prompt).digest("hex")}`).toBe(meta.prompt_sha256);
  });
});
