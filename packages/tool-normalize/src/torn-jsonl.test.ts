// A transcript line cut short (a full disk, a kill mid-write) must never swallow the next line, must be
// reported with its exact line number, and is repaired by `repairTranscriptDirectory` (what `evalgate gc`
// runs). The real fault is made on a small tmpfs filled to one free page.
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isEvalError } from "@eval/errors";
import { mountTmpfs } from "@eval/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import {
  createTranscriptParser,
  readTranscriptJsonl,
  repairTranscriptDirectory,
  transcriptLine,
  writeTranscriptJsonl,
} from "./index.ts";

const empty = () => createTranscriptParser("gemini-stream-json").end();
/** A transcript whose line is `bytes` long or more: one message of that size. */
const big = (bytes: number) => ({
  ...empty(),
  messages: [{ role: "assistant" as const, text: "x".repeat(bytes), truncated: false }],
});

describe("torn transcript lines", () => {
  it("a line never extends a torn one; readers name the torn line; the repair keeps its bytes and blanks it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "torn-"));
    const path = join(dir, "perf.jsonl");
    await writeTranscriptJsonl(path, empty(), { case_id: "a" });
    const cut = transcriptLine(empty(), { case_id: "b" }).slice(0, 40);
    appendFileSync(path, cut); // what a write cut short leaves: no newline
    await writeTranscriptJsonl(path, empty(), { case_id: "c" });
    const lines = readFileSync(path, "utf8").split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[1]).toBe(cut);
    expect(JSON.parse(lines[2]!).case_id).toBe("c");
    await expect(readTranscriptJsonl(path)).rejects.toThrow(`${path}:2 is not JSON (a torn line`);

    const repairs = await repairTranscriptDirectory(dir);
    expect(repairs).toEqual([{ path, blankedLines: [2], tornPath: `${path}.torn` }]);
    expect((await readTranscriptJsonl(path)).map((transcript) => transcript.case_id)).toEqual(["a", "c"]);
    expect(JSON.parse(readFileSync(`${path}.torn`, "utf8"))).toEqual({ line: 2, text: cut });
    // Idempotent: nothing left to repair; a missing directory is nothing to repair.
    expect(await repairTranscriptDirectory(dir)).toEqual([]);
    expect(await repairTranscriptDirectory(join(dir, "absent"))).toEqual([]);
  });

  it("an unterminated last line is left for the next append to end; whole lines that do not validate are not torn", async () => {
    const dir = mkdtempSync(join(tmpdir(), "torn-"));
    const path = join(dir, "x.jsonl");
    writeFileSync(path, `${JSON.stringify({ not: "a transcript" })}\n{"cut`);
    expect(await repairTranscriptDirectory(dir)).toEqual([]);
    expect(readFileSync(path, "utf8")).toBe(`${JSON.stringify({ not: "a transcript" })}\n{"cut`);
  });

  it.skipIf(process.getuid?.() === 0)("a transcript file it cannot open for repair is EVAL_IO naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "torn-"));
    writeFileSync(join(dir, "x.jsonl"), "{\n");
    chmodSync(join(dir, "x.jsonl"), 0o400);
    const error = await repairTranscriptDirectory(dir).catch((caught: unknown) => caught);
    expect(isEvalError(error) && error.code).toBe("EVAL_IO");
  });
});

const fs = mountTmpfs(256);
afterAll(() => {
  if (!("skip" in fs)) fs.unmount();
});

describe.skipIf("skip" in fs)(
  `a full disk under a transcript append${"skip" in fs ? ` (skipped: ${fs.skip})` : ""}`,
  () => {
    it("a write cut short is EVAL_IO naming the file; the next append after space returns stays whole; gc's repair recovers", async () => {
      if ("skip" in fs) return;
      const path = join(fs.path, "transcripts", "perf.jsonl");
      await writeTranscriptJsonl(path, empty(), { case_id: "before" });
      fs.fill(4096);
      const error = await writeTranscriptJsonl(path, big(64 * 1024), { case_id: "cut" }).catch(
        (caught: unknown) => caught,
      );
      expect(isEvalError(error) && error.code).toBe("EVAL_IO");
      expect((error as Error).message).toBe(
        `cannot append the transcript line to ${path}: no space left on the device (ENOSPC)`,
      );
      expect(isEvalError(error) && error.hint).toMatch(/free space on the file system of .*transcripts/);
      const afterFault = readFileSync(path, "utf8");
      expect(afterFault.length).toBeGreaterThan(transcriptLine(empty()).length + 100); // part of the line went down
      fs.free();
      await writeTranscriptJsonl(path, empty(), { case_id: "after" });
      await expect(readTranscriptJsonl(path)).rejects.toThrow(`${path}:2 is not JSON (a torn line`);
      const [repair] = await repairTranscriptDirectory(join(fs.path, "transcripts"));
      expect(repair?.blankedLines).toEqual([2]);
      expect((await readTranscriptJsonl(path)).map((transcript) => transcript.case_id)).toEqual(["before", "after"]);
    });
  },
);
