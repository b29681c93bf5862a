import { mkdtemp, readdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadOrCreateMacKey, sealEntry } from "@eval/cache";
import { invoke } from "../test-helpers.ts";
import { recordRuns } from "./audit.test-helpers.ts";

let stateDir: string;
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "cli-verify-"));
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

const lines = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("evalgate verify", () => {
  it("prints the verification as one JSON line and exits 0 on a good chain", async () => {
    await recordRuns(stateDir, [{}, { complete: false }, {}]);
    const result = await invoke(["verify", "--out", stateDir]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const [line] = lines(result.stdout);
    expect(line).toMatchObject({
      type: "verify",
      ok: true,
      records: 3,
      complete: 2,
      incomplete: 1,
      first_bad: null,
      strict: false,
    });
    expect(line!.head).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("reads the state directory from EVALGATE_STATE_DIR and prints a sentence with --format human", async () => {
    await recordRuns(stateDir, [{}]);
    const result = await invoke(["verify", "--format", "human", "--strict"], { env: { EVALGATE_STATE_DIR: stateDir } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^audit chain OK: 1 records \(1 complete, 0 incomplete\), head sha256:/);
  });

  it("exits 5 on an edited record, naming the file on stdout and in one stderr line", async () => {
    const paths = await recordRuns(stateDir, [{}, {}, {}]);
    await writeFile(
      paths[1]!,
      (await readFile(paths[1]!, "utf8")).replace(/"lower_bound_95":[0-9.]+/, '"lower_bound_95":0.99'),
    );
    const result = await invoke(["verify", "--out", stateDir]);
    expect(result.code).toBe(5);
    const name = paths[1]!.split("/").at(-1)!;
    expect(lines(result.stdout)[0]).toMatchObject({
      ok: false,
      first_bad: { file: name, reason: expect.stringMatching(/edited/) },
    });
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(new RegExp(`${name.replaceAll(".", "\\.")}.*EVAL_CHAIN_TAMPERED`));
    const human = await invoke(["verify", "--out", stateDir, "--format", "human"]);
    expect(human.stdout).toMatch(/^audit chain FAILED at .*: the report was edited/);
  });

  it("detects deleted newest records only with --expect-head", async () => {
    const paths = await recordRuns(stateDir, [{}, {}, {}]);
    const head = JSON.parse(await readFile(paths[2]!, "utf8")).chain_hash as string;
    await unlink(paths[2]!);
    expect((await invoke(["verify", "--out", stateDir])).code).toBe(0);
    const anchored = await invoke(["verify", "--out", stateDir, "--expect-head", head]);
    expect(anchored.code).toBe(5);
    expect(lines(anchored.stdout)[0]).toMatchObject({
      first_bad: { expected: head, reason: expect.stringMatching(/newest records were deleted/) },
    });
  });

  it("an anchor kept outside the state directory catches truncation with the head pointer restored (attack: newest, failing run deleted)", async () => {
    const paths = await recordRuns(stateDir, [{ passed: 12 }, { passed: 1 }]);
    const pointer = join(stateDir, "runs", ".index", "head.json");
    const outside = await mkdtemp(join(tmpdir(), "cli-anchor-"));
    const anchorFile = join(outside, "anchor.json");
    const written = await invoke(["anchor", "--out", stateDir, "--write", anchorFile]);
    expect(written.code, written.stderr).toBe(0);
    expect(lines(written.stdout)[0]).toMatchObject({ type: "anchor", records: 2, path: anchorFile });
    expect((await invoke(["verify", "--out", stateDir, "--anchor", anchorFile])).code).toBe(0);
    // The attack: delete the newest (failing) record, put the old head pointer back.
    const records = (await readdir(join(stateDir, "runs"))).filter((name) => name.endsWith(".json")).sort();
    expect(records).toHaveLength(2);
    await unlink(join(stateDir, "runs", records[1]!));
    await writeFile(pointer, `${JSON.stringify({ file: records[0], records: 1 })}\n`);
    expect((await invoke(["verify", "--out", stateDir])).code).toBe(0); // without the anchor nothing shows
    const anchored = await invoke(["verify", "--out", stateDir, "--anchor", anchorFile]);
    expect(anchored.code).toBe(5);
    expect(lines(anchored.stdout)[0]).toMatchObject({
      ok: false,
      first_bad: { reason: expect.stringMatching(/newest records were deleted .*\(anchor of 2 records at /) },
    });
    expect(anchored.stderr).toMatch(/EVAL_CHAIN_TAMPERED/);
    const inside = await invoke(["anchor", "--out", stateDir, "--write", join(stateDir, "anchor.json")]);
    expect(inside.code).toBe(1);
    expect(inside.stderr).toMatch(/is inside the state directory .*EVAL_USAGE/);
    // ATTACK: a file name starting with two dots is still inside the state directory.
    const dotted = await invoke(["anchor", "--out", stateDir, "--write", join(stateDir, "..anchor.json")]);
    expect(dotted.code, dotted.stderr).toBe(1);
    expect(dotted.stderr).toMatch(/is inside the state directory .*EVAL_USAGE/);
    await writeFile(join(outside, "junk.json"), "{}");
    expect((await invoke(["verify", "--out", stateDir, "--anchor", join(outside, "junk.json")])).stderr).toMatch(
      /is not a chain anchor.*EVAL_USAGE/,
    );
    await rm(outside, { recursive: true, force: true });
    expect(paths).toHaveLength(2);
  });

  it("verifies a --since window and rejects a bad --since or --expect-head in one line (exit 1)", async () => {
    await recordRuns(stateDir, [{}, {}]);
    const window = await invoke(["verify", "--out", stateDir, "--since", "2000-01-01"]);
    expect(lines(window.stdout)[0]).toMatchObject({ ok: true, records: 2, skipped: 0 });
    for (const argv of [
      ["--since", "last week"],
      ["--expect-head", "nope"],
    ]) {
      const result = await invoke(["verify", "--out", stateDir, ...argv]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^evalgate: --(since|expect-head) must be .*EVAL_USAGE/);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  it("treats a missing runs directory as an empty chain", async () => {
    const result = await invoke(["verify", "--out", join(stateDir, "nothing")]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)[0]).toMatchObject({ ok: true, records: 0 });
    expect(await readdir(stateDir)).toEqual([]);
  });
});

describe("evalgate verify and the history index", () => {
  const indexFile = (): string => join(stateDir, "runs", ".index", "history.json");
  /** The index a view built, its entries edited by `edit` and sealed again with the state's own key (no view notices). */
  async function reseal(edit: (entries: string[]) => string[]): Promise<void> {
    const [header, ...entries] = (await readFile(indexFile(), "utf8")).split("\n")[0]!.split("\t");
    const key = await loadOrCreateMacKey(join(stateDir, "cache.key"));
    await writeFile(indexFile(), sealEntry(key, "evalgate.history_index", [header, ...edit(entries)].join("\t")));
  }
  /** Three recorded runs and the index `evalgate runs` builds of them. */
  async function indexed(): Promise<string[]> {
    const paths = await recordRuns(stateDir, [{ passed: 12 }, { passed: 6 }, { passed: 9 }]);
    expect((await invoke(["runs", "--out", stateDir])).code).toBe(0);
    return paths.map((path) => path.split("/").at(-1)!);
  }
  const warningsOf = (stderr: string) => lines(stderr).filter((line) => line.level === "warn");

  it("agrees with the chain it was built from: compared, quiet", async () => {
    await indexed();
    const result = await invoke(["verify", "--out", stateDir, "--strict"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(lines(result.stdout)[0]!.history_index).toMatchObject({ state: "agrees", entries: 3, compared: 3 });
    const human = await invoke(["verify", "--out", stateDir, "--format", "human"]);
    expect(human.stdout).toMatch(
      /\nhistory index OK: 3 entries, 0 newer records not yet indexed, 3 summaries compared\n$/,
    );
  });

  it("an entry tampered (resealed): named by run id and field; a warning with the rebuild hint, exit 5 under --strict", async () => {
    const files = await indexed();
    await reseal((entries) =>
      entries.map((entry, at) => (at === 1 ? entry.replace(/"pass_rate":[0-9.]+/, '"pass_rate":1') : entry)),
    );
    const plain = await invoke(["verify", "--out", stateDir]);
    expect(plain.code).toBe(0);
    const [line] = lines(plain.stdout);
    expect(line).toMatchObject({ ok: true, first_bad: null, history_index: { state: "disagrees", disagreements: 1 } });
    expect((line!.history_index as { listed: unknown[] }).listed).toEqual([
      { run_id: "run-1", file: files[1], kind: "summary", detail: "pass_rate: index 1, record 0.5" },
    ]);
    expect(warningsOf(plain.stderr)).toEqual([
      expect.objectContaining({
        code: "verify.history_index",
        message: expect.stringMatching(
          /first run run-1 .*the chain itself verifies: remove .*history\.json; the next `evalgate runs`/,
        ),
      }),
    ]);
    const strict = await invoke(["verify", "--out", stateDir, "--strict"]);
    expect(strict.code).toBe(5);
    expect(lines(strict.stdout)[0]).toMatchObject({
      ok: false,
      first_bad: { file: indexFile(), found: "summary: run-1" },
    });
    expect(strict.stderr.trim().split("\n")).toHaveLength(1);
    expect(strict.stderr).toMatch(
      /disagrees with the chain on 1 entry, first run run-1 .*EVAL_HISTORY_INDEX_DISAGREES.*remove .*history\.json/,
    );
    const human = await invoke(["verify", "--out", stateDir, "--strict", "--format", "human"]);
    expect(human.stdout).toMatch(
      /^audit chain OK: 3 records .*\nhistory index FAILED \(.*history\.json\): 1 entry disagrees/,
    );
    // The hint holds: the index removed, the next view rebuilds it from the chain and verify agrees.
    await rm(indexFile());
    expect(lines((await invoke(["verify", "--out", stateDir, "--strict"])).stdout)[0]!.history_index).toMatchObject({
      state: "absent",
    });
    await invoke(["runs", "--out", stateDir]);
    expect((await invoke(["verify", "--out", stateDir, "--strict"])).code).toBe(0);
  });

  it("an entry deleted: the run is named missing", async () => {
    const files = await indexed();
    await reseal((entries) => entries.filter((_, at) => at !== 0));
    const strict = await invoke(["verify", "--out", stateDir, "--strict"]);
    expect(strict.code).toBe(5);
    expect(strict.stderr).toMatch(/first run run-0 \(missing: the record at chain position 0 has no index entry\)/);
    expect((lines(strict.stdout)[0]!.history_index as { listed: unknown[] }).listed).toEqual([
      expect.objectContaining({ run_id: "run-0", file: files[0], kind: "missing" }),
    ]);
    expect((await invoke(["verify", "--out", stateDir])).code).toBe(0);
  });

  it("an entry added for a run the chain does not hold: named extra", async () => {
    await indexed();
    const forged = "2030-01-01T00-00-00.000Z-0123456789ab.json";
    await reseal((entries) => [
      ...entries,
      entries[2]!.replace(/"file":"[^"]+"/, `"file":"${forged}"`).replace(/"run_id":"run-2"/, '"run_id":"run-forged"'),
    ]);
    const plain = await invoke(["verify", "--out", stateDir]);
    expect(plain.code).toBe(0);
    expect((lines(plain.stdout)[0]!.history_index as { listed: unknown[] }).listed).toEqual([
      { run_id: "run-forged", file: forged, kind: "extra", detail: "the index lists a run the chain has no record of" },
    ]);
    expect(warningsOf(plain.stderr)).toHaveLength(1);
    expect((await invoke(["verify", "--out", stateDir, "--strict"])).code).toBe(5);
  });

  it("is not compared when the chain itself does not verify (the chain's fault is the one named)", async () => {
    const files = await indexed();
    await unlink(join(stateDir, "runs", files[1]!));
    const result = await invoke(["verify", "--out", stateDir]);
    expect(result.code).toBe(5);
    expect(lines(result.stdout)[0]).toMatchObject({ ok: false, history_index: null });
    expect(result.stderr).toMatch(/EVAL_CHAIN_TAMPERED/);
  });
});
