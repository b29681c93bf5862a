import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { appendDurable } from "./append.ts";

const root = mkdtempSync(join(tmpdir(), "durable-fs-append-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("appendDurable", () => {
  it("creates the file with its mode, appends, and 50 concurrent appenders of whole lines never interleave", async () => {
    const path = join(root, "summary.md");
    await appendDurable(path, "# head\n", { mode: 0o600 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await Promise.all(
      Array.from({ length: 50 }, (_, n) => appendDurable(path, `${String(n).padStart(2, "0")}${"y".repeat(4000)}\n`)),
    );
    const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
    expect(lines[0]).toBe("# head");
    expect(lines.slice(1).every((line) => /^\d\dy{4000}$/.test(line))).toBe(true);
    expect(new Set(lines.slice(1).map((line) => line.slice(0, 2))).size).toBe(50);
  });

  it("fails with the system's error when the directory is missing", async () => {
    await expect(appendDurable(join(root, "missing", "x"), "x")).rejects.toMatchObject({ code: "ENOENT" });
  });
});
