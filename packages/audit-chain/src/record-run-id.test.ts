import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runIdOfRecordFile } from "./record-run-id.ts";

describe("runIdOfRecordFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "record-run-id-"));
  const file = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it("reads the run_id of a chain record and of a bare report", async () => {
    expect(
      await runIdOfRecordFile(file("record.json", JSON.stringify({ report: { run_id: "r-1" }, chain_hash: "x" }))),
    ).toBe("r-1");
    expect(await runIdOfRecordFile(file("report.json", JSON.stringify({ run_id: "r-2" })))).toBe("r-2");
  });

  it("refuses a missing file, a file that is not JSON, and one that names no run", async () => {
    await expect(runIdOfRecordFile(join(dir, "absent.json"))).rejects.toMatchObject({ code: "EVAL_REPORT_NOT_FOUND" });
    await expect(runIdOfRecordFile(file("bad.json", "{not json"))).rejects.toMatchObject({
      code: "EVAL_REPORT_INVALID",
    });
    await expect(runIdOfRecordFile(file("empty.json", JSON.stringify({ run_id: "" })))).rejects.toMatchObject({
      code: "EVAL_REPORT_INVALID",
      message: /names no run_id/,
    });
    await expect(runIdOfRecordFile(file("null.json", "null"))).rejects.toMatchObject({ code: "EVAL_REPORT_INVALID" });
  });
});
