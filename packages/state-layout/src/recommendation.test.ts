import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeRecommendation } from "./recommendation.ts";

const root = mkdtempSync(join(tmpdir(), "state-layout-recommendation-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("writeRecommendation", () => {
  it("writes each document to its own file named by time, task class, label and bytes, mode 0600 in a 0700 directory", async () => {
    const dir = join(root, "recommendations");
    const at = "2026-11-26T10:00:00.000Z";
    const first = await writeRecommendation(dir, {
      at,
      taskClass: "tc",
      label: "candidate",
      what: "verdict",
      document: { a: 1 },
    });
    const second = await writeRecommendation(dir, {
      at,
      taskClass: "tc",
      label: "candidate",
      what: "verdict",
      document: { a: 2 },
    });
    const compare = await writeRecommendation(dir, {
      at,
      taskClass: "tc",
      label: "compare",
      what: "comparison",
      document: { b: 1 },
    });
    expect(first).toMatch(/\/2026-11-26T10-00-00\.000Z-tc-candidate-[0-9a-f]{8}\.json$/);
    expect(second).not.toBe(first);
    expect(compare).toMatch(/-tc-compare-[0-9a-f]{8}\.json$/);
    expect(JSON.parse(readFileSync(first, "utf8"))).toEqual({ a: 1 });
    expect(readFileSync(second, "utf8")).toBe(`${JSON.stringify({ a: 2 }, null, 2)}\n`);
    expect(statSync(first).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toHaveLength(3);
  });

  it("a directory it cannot create is one EVAL_IO line naming the file and what was written", async () => {
    writeFileSync(join(root, "afile"), "x");
    await expect(
      writeRecommendation(join(root, "afile", "recommendations"), {
        at: "t",
        taskClass: "tc",
        label: "compare",
        what: "comparison",
        document: {},
      }),
    ).rejects.toMatchObject({
      code: "EVAL_IO",
      message: expect.stringMatching(
        /^cannot write the comparison .*afile\/recommendations\/t-tc-compare-[0-9a-f]{8}\.json: /,
      ),
    });
  });
});
