// A task class's evidence catalog on a real chain (appendRunRecord): built at the verified head when missing,
// read alone afterwards (the history index is not read), extended when the chain grew, rebuilt when edited,
// truncated or another task class's, and the verdict it gives equal to the one read from every record.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendRunRecord, getHostFingerprint, readChainHead, RECORD_FILE_PATTERN } from "@eval/audit-chain";
import type { EvalWarning } from "@eval/errors";
import type { BenchRunReportInput } from "@eval/models";
import { issueVerdict, loadTierConfig } from "@eval/promotion";
import type { CatalogRun, EvidenceCatalog } from "@eval/promotion";
import { runReport } from "@eval/test-utils";
import { gatherReportData } from "./gather.ts";
import { verifiedEvidence } from "./verified-history.ts";

const TIERS = join(import.meta.dirname, "..", "..", "..", "docs", "trust-tiers.yaml");
const OTHER_SUT = `blake3:${"1".repeat(64)}`;
let stateDir: string;
let runsDir: string;
let warnings: EvalWarning[];
const onWarning = (warning: EvalWarning): void => void warnings.push(warning);
const catalogFile = (taskClass = "vuln-remediation"): string => join(runsDir, ".index", `catalog.${taskClass}.json`);
const historyFile = (): string => join(runsDir, ".index", "history.json");
const recordFiles = async (): Promise<string[]> =>
  (await readdir(runsDir)).filter((name) => RECORD_FILE_PATTERN.test(name)).sort();

async function append(report: BenchRunReportInput): Promise<void> {
  const host = await getHostFingerprint(stateDir);
  await appendRunRecord(
    { ...report, prev_hash: (await readChainHead(runsDir)).head, host_fingerprint: host },
    { runsDir, hostFingerprint: host },
  );
}

const listed = async (catalog: EvidenceCatalog | undefined): Promise<string[]> =>
  [...(catalog!.runs("vuln-remediation") as Iterable<CatalogRun>)].map((run) => run.run_id);

beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "task-class-catalog-"));
  runsDir = join(stateDir, "runs");
  warnings = [];
  await append(runReport({ runId: "run-a", passed: 8 }));
  await append({ ...runReport({ runId: "run-b", passed: 12 }), sut_digest: OTHER_SUT });
  await append(runReport({ runId: "run-c", passed: 12, taskClass: "migration-chainguard-distroless" }));
  await append(runReport({ runId: "run-d", complete: false, unfinished: 2 }));
}, 60_000);
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

describe("the task-class catalog", () => {
  it("is built at the verified head when missing, sealed, and then read alone (not the history index)", async () => {
    expect(() => readFileSync(catalogFile())).toThrow();
    const first = await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    expect(await listed(first.catalog)).toEqual(["run-a", "run-b", "partial:run-d"]);
    expect(readFileSync(catalogFile(), "utf8")).toMatch(/\nhmac-sha256:[0-9a-f]{64}\n$/);
    // A view reading the history index now would rebuild it, with a warning: the catalog alone is read.
    writeFileSync(historyFile(), "not an index");
    const again = await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    expect(await listed(again.catalog)).toEqual(["run-a", "run-b", "partial:run-d"]);
    expect([...(again.catalog!.newestFirst("vuln-remediation") as Iterable<CatalogRun>)].map((r) => r.run_id)).toEqual([
      "partial:run-d",
      "run-b",
      "run-a",
    ]);
    expect(warnings).toEqual([]);
    expect(() => again.catalog!.runs("migration-chainguard-distroless")).toThrow(/catalog of vuln-remediation/);
  });

  it("a stale catalog (the chain grew) is extended to the verified head, quietly", async () => {
    await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    await append(runReport({ runId: "run-e", passed: 10 }));
    const { catalog } = await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    expect(await listed(catalog)).toEqual(["run-a", "run-b", "partial:run-d", "run-e"]);
    expect(JSON.parse(readFileSync(catalogFile(), "utf8").split("\t")[0]!)).toMatchObject({ records: 5 });
    expect(warnings).toEqual([]);
  });

  it("an edited catalog (a run hidden from the verdict) fails its MAC: rebuilt from the chain, with a warning", async () => {
    await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    // Move run-a's row under the other SUT's key: a verdict on run-a's SUT would no longer pool it.
    const text = readFileSync(catalogFile(), "utf8");
    const [body, mac] = text.split("\n");
    const rows = body!.split("\t");
    const row = JSON.parse(rows[1]!) as unknown[];
    rows[1] = JSON.stringify([row[0], row[1], 1, ...row.slice(3)]);
    writeFileSync(catalogFile(), `${rows.join("\t")}\n${mac}\n`);
    const { catalog } = await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    const runA = [...(catalog!.runs("vuln-remediation") as Iterable<CatalogRun>)][0]!;
    expect(runA.key.sut_digest).not.toBe(OTHER_SUT);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      ["history.catalog_rebuilt", expect.stringContaining("fails its MAC")],
    ]);
    warnings = [];
    await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    expect(warnings).toEqual([]);
  });

  it("a truncated catalog, or another task class's sealed catalog put in its place, is rebuilt", async () => {
    await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    writeFileSync(catalogFile(), readFileSync(catalogFile(), "utf8").split("\n")[0]!);
    expect(await listed((await verifiedEvidence(stateDir, "vuln-remediation", onWarning)).catalog)).toHaveLength(3);
    await verifiedEvidence(stateDir, "migration-chainguard-distroless", onWarning);
    renameSync(catalogFile("migration-chainguard-distroless"), catalogFile());
    expect(await listed((await verifiedEvidence(stateDir, "vuln-remediation", onWarning)).catalog)).toHaveLength(3);
    expect(warnings.map((w) => w.message)).toEqual([
      expect.stringContaining("has no valid MAC line"),
      expect.stringContaining("is the catalog of migration-chainguard-distroless"),
    ]);
  });

  it("a catalog of another chain (not a prefix of this one) is rebuilt, never trusted", async () => {
    await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    const copied = readFileSync(catalogFile());
    // The same state (key, host) with another history: the old catalog's head is not in it.
    await rm(runsDir, { recursive: true });
    await rm(join(stateDir, "chain.checkpoint"));
    await append(runReport({ runId: "run-x", passed: 9 }));
    await append(runReport({ runId: "run-y", passed: 9 }));
    await append(runReport({ runId: "run-z", passed: 9 }));
    await append(runReport({ runId: "run-w", passed: 9 }));
    await append(runReport({ runId: "run-v", passed: 9 }));
    await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    writeFileSync(catalogFile(), copied);
    warnings = [];
    const { catalog } = await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    expect(await listed(catalog)).toEqual(["run-x", "run-y", "run-z", "run-w", "run-v"]);
    expect(warnings.map((w) => w.message)).toEqual([expect.stringContaining("does not match the chain's records")]);
  });

  it("a listed record edited in place after cataloguing is refused when read; a file it does not list is refused", async () => {
    const { catalog } = await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    const [first, , third] = await recordFiles();
    expect((await catalog!.read(first!)).report.run_id).toBe("run-a");
    await expect(catalog!.read(third!)).rejects.toMatchObject({ code: "EVAL_CHAIN_TAMPERED" });
    writeFileSync(
      join(runsDir, first!),
      readFileSync(join(runsDir, first!), "utf8").replace('"passed":false', '"passed":true'),
    );
    await expect(catalog!.read(first!)).rejects.toMatchObject({ code: "EVAL_CHAIN_TAMPERED" });
  });

  it("gives the verdict the records give (exclusions, signatures, passed over), and the views the same run and trend", async () => {
    await append(runReport({ runId: "run-e", passed: 11 }));
    await append(runReport({ runId: "run-f", passed: 12, subsetOf: 20 }));
    const config = await loadTierConfig(TIERS);
    const issue = async (catalog: EvidenceCatalog | undefined) =>
      (
        await issueVerdict({
          config,
          runsDir,
          recommendationsDir: join(stateDir, "recommendations"),
          taskClass: { name: "vuln-remediation", minCasesForPromotion: { bronze: 10 } },
          now: new Date("2026-11-27T00:00:00Z"),
          ...(catalog === undefined ? {} : { catalog }),
        })
      ).verdict;
    const { catalog } = await verifiedEvidence(stateDir, "vuln-remediation", onWarning);
    expect(catalog).toBeDefined();
    const fromRecords = await issue(undefined);
    // runReport's fixed figures disagree with its per-case scores: each record of the judged SUT is read (through
    // the catalog, checked) and left out as tampered; the other SUT's is left out on the catalog's key alone.
    expect(fromRecords.evidence_pool!.runs_excluded).toEqual([
      { reason: "tampered figures", count: 4, newest: ["run-f", "run-e", "partial:run-d", "run-a"] },
      { reason: "another SUT", count: 1, newest: ["run-b"] },
    ]);
    expect(fromRecords.passed_over).toHaveLength(1);
    expect(await issue(catalog)).toEqual(fromRecords);
    // The views: the newest run (the head's task class) and its trend, from the stored catalog and from one rebuilt from scratch.
    const gather = () =>
      gatherReportData({
        stateDir,
        benchRoot: join(stateDir, "no-bench"),
        tiersPath: TIERS,
        harnessVersion: "0.1.0",
        now: new Date("2026-11-27T00:00:00Z"),
        onWarning,
      });
    const viaCatalog = await gather();
    await rm(catalogFile());
    await rm(join(runsDir, ".index", "history.json"));
    await rm(join(stateDir, "chain.checkpoint"));
    expect(await gather()).toEqual(viaCatalog);
    expect(viaCatalog.run.run_id).toBe("run-f");
    expect(viaCatalog.trend.map((point) => point.run_id)).toEqual(["run-a", "run-b", "run-e"]);
  });

  it("a view of a named run: found through the history index (no task class given) or the catalog, its baseline too; an unknown run is not found", async () => {
    const view = (extra: { runId?: string; taskClass?: string; baselineRunId?: string }) =>
      gatherReportData({
        stateDir,
        benchRoot: join(stateDir, "no-bench"),
        tiersPath: TIERS,
        harnessVersion: "0.1.0",
        onWarning,
        ...extra,
      });
    const byHistory = await view({ runId: "run-b", baselineRunId: "run-a" });
    expect([byHistory.run.run_id, byHistory.baseline?.run_id]).toEqual(["run-b", "run-a"]);
    const byCatalog = await view({ runId: "run-b", taskClass: "vuln-remediation", baselineRunId: "run-a" });
    expect([byCatalog.run.run_id, byCatalog.baseline?.run_id]).toEqual(["run-b", "run-a"]);
    await expect(view({ runId: "run-zz", taskClass: "vuln-remediation" })).rejects.toMatchObject({
      code: "EVAL_REPORT_NOT_FOUND",
    });
    await expect(view({ runId: "run-zz" })).rejects.toMatchObject({ code: "EVAL_REPORT_NOT_FOUND" });
  });
});
