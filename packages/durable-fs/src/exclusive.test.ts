import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createFileExclusive } from "./exclusive.ts";

const root = mkdtempSync(join(tmpdir(), "durable-fs-exclusive-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("createFileExclusive", () => {
  it("creates a file whole with its mode and leaves nothing in the staging directory", async () => {
    const staging = join(root, ".staging");
    expect(await createFileExclusive(root, "record.json", "{}\n", { mode: 0o600, stagingDir: staging })).toBe(
      join(root, "record.json"),
    );
    expect(readFileSync(join(root, "record.json"), "utf8")).toBe("{}\n");
    expect(statSync(join(root, "record.json")).mode & 0o777).toBe(0o600);
    expect(readdirSync(staging)).toEqual([]);
  });

  it("never replaces an existing file: EEXIST, the old bytes kept, no temporary file left", async () => {
    writeFileSync(join(root, "taken"), "first\n");
    await expect(
      createFileExclusive(root, "taken", "second\n", { mode: 0o600, stagingDir: root }),
    ).rejects.toMatchObject({ code: "EEXIST" });
    expect(readFileSync(join(root, "taken"), "utf8")).toBe("first\n");
    expect(readdirSync(root).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("of 8 concurrent creators of one name exactly one wins and the file is the winner's whole", async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, n) =>
        createFileExclusive(root, "raced", `writer ${n}\n`.repeat(1000), { mode: 0o600, stagingDir: root }),
      ),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(readFileSync(join(root, "raced"), "utf8")).toMatch(/^(writer \d\n){1000}$/);
  });
});
