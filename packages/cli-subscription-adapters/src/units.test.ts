import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  describeEnv,
  isSecretEnvName,
  redactArgv,
  scrubSecrets,
  secretValuesInArgv,
  secretValuesInEnv,
} from "./redaction.ts";
import { applyUnifiedDiff, unifiedDiff } from "./workspace-diff.ts";

describe("argv redaction (reviewer Q7 and round-2 bug #1)", () => {
  it("redacts --password=hunter2 and --password hunter2, and the other secret flags", () => {
    expect(redactArgv(["claude", "--password=hunter2", "--print", "p"])).toEqual([
      "claude",
      "--password=<redacted>",
      "--print",
      "p",
    ]);
    expect(redactArgv(["claude", "--password", "hunter2", "--print", "p"])).toEqual([
      "claude",
      "--password",
      "<redacted>",
      "--print",
      "p",
    ]);
    for (const flag of ["--api-key", "--apikey", "--token", "--secret", "--github-token", "--openai-api-key"]) {
      expect(redactArgv([flag, "s3cret"])).toEqual([flag, "<redacted>"]);
      expect(redactArgv([`${flag}=s3cret`])).toEqual([`${flag}=<redacted>`]);
    }
    expect(redactArgv(["--token"])).toEqual(["--token"]);
  });

  it("never redacts -p or --print: the prompt is the most important evidence", () => {
    expect(redactArgv(["claude", "-p", "Fix the bug"])).toEqual(["claude", "-p", "Fix the bug"]);
    expect(redactArgv(["claude", "--print", "Fix the bug"])).toEqual(["claude", "--print", "Fix the bug"]);
    expect(redactArgv(["gemini", "--prompt", "hello"])).toEqual(["gemini", "--prompt", "hello"]);
  });

  it("redacts secret-named assignments such as OPENAI_API_KEY=sk-...", () => {
    expect(redactArgv(["env", "OPENAI_API_KEY=sk-live-123", "codex"])).toEqual([
      "env",
      "OPENAI_API_KEY=<redacted>",
      "codex",
    ]);
    expect(redactArgv(["MODEL=gpt"])).toEqual(["MODEL=gpt"]);
    expect(secretValuesInArgv(["--password=a1", "--token", "b2", "OPENAI_API_KEY=sk-3", "--print", "p"])).toEqual([
      "a1",
      "b2",
      "sk-3",
    ]);
  });
});

describe("env redaction", () => {
  it("records names only, tagging secret-looking ones", () => {
    expect(
      describeEnv({ PATH: "/bin", OPENAI_API_KEY: "sk-x", HOME: "/root", GH_TOKEN: "t", UNSET: undefined }),
    ).toEqual([
      { name: "GH_TOKEN", secret: true },
      { name: "HOME", secret: false },
      { name: "OPENAI_API_KEY", secret: true },
      { name: "PATH", secret: false },
    ]);
    expect(isSecretEnvName("ANTHROPIC_AUTH_TOKEN")).toBe(true);
    expect(isSecretEnvName("LANG")).toBe(false);
    expect(secretValuesInEnv({ OPENAI_API_KEY: "sk-abcdef", SHORT_KEY: "ab", PATH: "/bin" })).toEqual(["sk-abcdef"]);
  });

  it("scrubs secret values out of text, longest first", () => {
    expect(scrubSecrets("key sk-abcdef and sk-abc", ["sk-abc", "sk-abcdef"])).toBe("key <redacted> and <redacted>");
    expect(scrubSecrets("nothing", [])).toBe("nothing");
  });
});

describe("workspace diffs", () => {
  it("round-trips modified, added and deleted text files; binary files are set aside", () => {
    const { diff, binaryPaths } = unifiedDiff([
      { path: "b.txt", before: Buffer.from("one\ntwo\n"), after: Buffer.from("one\nthree\n") },
      { path: "a/new.txt", before: null, after: Buffer.from("new\n") },
      { path: "gone.txt", before: Buffer.from("bye\n"), after: null },
      { path: "img.bin", before: Buffer.from([0, 1]), after: Buffer.from([0, 2]) },
    ]);
    expect(binaryPaths).toEqual(["img.bin"]);
    expect(diff).toContain("--- /dev/null\n+++ b/a/new.txt");
    expect(diff).toContain("--- a/gone.txt\n+++ /dev/null");
    const root = mkdtempSync(join(tmpdir(), "evalgate-diff-"));
    writeFileSync(join(root, "b.txt"), "one\ntwo\n");
    writeFileSync(join(root, "gone.txt"), "bye\n");
    expect(applyUnifiedDiff(root, diff).sort()).toEqual(["a/new.txt", "b.txt", "gone.txt"]);
    expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("one\nthree\n");
    expect(readFileSync(join(root, "a", "new.txt"), "utf8")).toBe("new\n");
    expect(() => readFileSync(join(root, "gone.txt"))).toThrow();
    expect(applyUnifiedDiff(root, "")).toEqual([]);
  });

  it("refuses a diff that does not apply, touches a missing file, re-adds a file or escapes the root, writing nothing", () => {
    const root = mkdtempSync(join(tmpdir(), "evalgate-diff-"));
    writeFileSync(join(root, "b.txt"), "something else\n");
    const { diff } = unifiedDiff([{ path: "b.txt", before: Buffer.from("one\n"), after: Buffer.from("two\n") }]);
    expect(() => applyUnifiedDiff(root, diff)).toThrow(/the diff for b.txt does not apply/);
    expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("something else\n");
    const missing = unifiedDiff([{ path: "c.txt", before: Buffer.from("one\n"), after: Buffer.from("two\n") }]).diff;
    expect(() => applyUnifiedDiff(root, missing)).toThrow(/c.txt, which does not exist/);
    const readd = unifiedDiff([{ path: "b.txt", before: null, after: Buffer.from("x\n") }]).diff;
    expect(() => applyUnifiedDiff(root, readd)).toThrow(/adds b.txt, which already exists/);
    const escape = "--- a/../x\n+++ b/../x\n@@ -1,1 +1,1 @@\n-a\n+b\n";
    expect(() => applyUnifiedDiff(root, escape)).toThrow(/escapes the workspace root/);
  });
});
