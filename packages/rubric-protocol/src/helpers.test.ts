import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentErrorDetail, changedFiles } from "./index.ts";

describe("changedFiles", () => {
  it("sees additions, removals and edits in nested directories, and nothing when nothing changed", () => {
    const input = mkdtempSync(join(tmpdir(), "evalgate-input-"));
    mkdirSync(join(input, "src", "lib"), { recursive: true });
    writeFileSync(join(input, "package.json"), "{}");
    writeFileSync(join(input, "src", "lib", "a.js"), "a");
    writeFileSync(join(input, "src", "b.js"), "b");
    const workspace = mkdtempSync(join(tmpdir(), "evalgate-ws-"));
    cpSync(input, workspace, { recursive: true });
    expect(changedFiles(input, workspace)).toEqual([]);
    rmSync(join(workspace, "src", "b.js"));
    writeFileSync(join(workspace, "src", "lib", "a.js"), "A");
    writeFileSync(join(workspace, "NOTES.md"), "x");
    expect(changedFiles(input, workspace)).toEqual(["NOTES.md", "src/b.js", "src/lib/a.js"]);
  });
});

describe("agentErrorDetail", () => {
  it("prefers the trial classification, with its CLI error kind when present", () => {
    expect(agentErrorDetail({ classification: { reason: "not logged in", cli_error_kind: "auth_failure" } })).toBe(
      "auth_failure: not logged in",
    );
    expect(agentErrorDetail({ classification: { reason: "no result event" } })).toBe("no result event");
  });

  it("falls back to a plain error string, then to a generic sentence", () => {
    expect(agentErrorDetail({ error: "spawn ENOENT" })).toBe("spawn ENOENT");
    expect(agentErrorDetail({ classification: { reason: 3 } })).toBe(
      "the agent CLI reported an error before working on the task",
    );
  });
});
