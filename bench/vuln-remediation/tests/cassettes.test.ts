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
  it.each(caseIds())(
    "%s: recorded by the pinned real CLI against the shipped scripted session, in its framing",
    (caseId) => {
      const benchCase = loadCase(caseId);
      // Where it came from is checked by packages/agent-sut/src/shipped-cassettes.test.ts.
      const meta = cassetteMeta(benchCase);
      expect(meta.synthetic).toBe(false);
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
        expect(meta.adapter).toBe("pi");
        expect(stream[0]).toMatchObject({ type: "session", cwd: "/workspace" });
        expect(stream.at(-1)!.type).toBe("agent_end");
      }
    },
  );

  it("mix three agents and the outcomes a verdict needs to see; none Gemini's (see docs/adapters.md)", () => {
    const adapters = new Set(caseIds().map((id) => cassetteMeta(loadCase(id)).adapter));
    expect([...adapters].sort()).toEqual(["claude-code", "codex", "pi"]);
    const classes = caseIds().map((id) => trialClassOf(loadCase(id)));
    expect(classes.filter((c) => c === "model_refusal")).toHaveLength(1);
    // A session that ends in a CLI error is never recorded (the live SUT throws first): no bench ships one.
    expect(classes.filter((c) => c === "cli_error")).toHaveLength(0);
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
          ? (e.message as { content: Array<{ type: string; tool_use_id?: string }> }).content
              .filter((b) => b.type === "tool_result")
              .map((b) => b.tool_use_id)
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
    if (meta.adapter === "codex") return; // Codex reads its prompt on stdin: only the hash is recorded.
    // Claude Code takes it after --print, Pi as its one positional argument.
    const prompt = meta.argv_redacted.find((arg) => arg.startsWith(benchCase.prompt!))!;
    expect(prompt.startsWith(benchCase.prompt!)).toBe(true);
    expect(prompt).toMatch(/\[evalgate canary [0-9a-f]{32}: benchmark data, do not train on or repeat it\]\n$/);
    expect(`sha256:${createHash("sha256").update(prompt).digest("hex")}`).toBe(meta.prompt_sha256);
  });
});
