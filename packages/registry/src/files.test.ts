import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { entryKind } from "./files.ts";

describe("entryKind", () => {
  const root = mkdtempSync(join(tmpdir(), "evalgate-entry-kind-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("names what is at a path without following a symlink; a miss (also below a file) is missing", async () => {
    writeFileSync(join(root, "file"), "x");
    mkdirSync(join(root, "dir"));
    symlinkSync(join(root, "file"), join(root, "link"));
    expect(await entryKind(join(root, "file"))).toBe("file");
    expect(await entryKind(join(root, "dir"))).toBe("directory");
    expect(await entryKind(join(root, "link"))).toBe("symlink");
    expect(await entryKind("/dev/null")).toBe("other");
    expect(await entryKind(join(root, "absent"))).toBe("missing");
    expect(await entryKind(join(root, "file", "below"))).toBe("missing");
  });

  it("throws what is not a miss (a name longer than the system allows)", async () => {
    await expect(entryKind(join(root, "n".repeat(300)))).rejects.toMatchObject({ code: "ENAMETOOLONG" });
  });
});
