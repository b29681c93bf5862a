import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  caseDetailFile,
  caseDetailsDir,
  DEFAULT_STATE_DIR,
  detailIndexPath,
  RUN_DIR_NAMES,
  RUNS_NAMES,
  STATE_NAMES,
  stateLayout,
  taskClassCatalogPath,
  transcriptFile,
  transcriptStreamsDir,
  WRITTEN_SUBDIRS,
} from "./names.ts";

describe("the state directory's layout", () => {
  it("places every entry under the state directory, each name once", () => {
    const layout = stateLayout("/s");
    expect(layout).toEqual({
      root: "/s",
      runs: "/s/runs",
      cache: "/s/cache",
      cacheKey: "/s/cache.key",
      blobs: "/s/blobs",
      transcripts: "/s/transcripts",
      recommendations: "/s/recommendations",
      compliance: "/s/compliance",
      hostId: "/s/host_id",
      checkpoint: "/s/chain.checkpoint",
      fileDigests: "/s/file-digests.json",
      caseTrees: "/s/case-trees.sealed",
    });
    expect(new Set(Object.values(STATE_NAMES)).size).toBe(Object.keys(STATE_NAMES).length);
    expect(DEFAULT_STATE_DIR).toBe(".evalgate");
    expect(stateLayout(DEFAULT_STATE_DIR).runs).toBe(join(".evalgate", "runs"));
  });

  it("keeps the cache key outside cache/ and every written subdirectory a directory name", () => {
    const layout = stateLayout("/s");
    expect(layout.cacheKey.startsWith(`${layout.cache}/`)).toBe(false);
    expect(WRITTEN_SUBDIRS).toEqual(["runs", "cache", "recommendations", "compliance", "transcripts", "blobs"]);
  });

  it("names what lives in runs/: details, trials, the detail index, the head pointer and the markers", () => {
    expect(caseDetailsDir("/s/runs", "run-1")).toBe("/s/runs/run-1/cases");
    expect(caseDetailFile("c-1", 0)).toBe("c-1.json");
    expect(caseDetailFile("c-1", 2)).toBe("c-1.trial-2.json");
    expect(detailIndexPath("/s/runs", `blake3:${"ab".repeat(32)}`)).toBe(
      `/s/runs/.detail-index/${"ab".repeat(32)}.json`,
    );
    // Every name runs/ holds besides the records and the run directories starts with a dot (out of both
    // listings); head.json, history.json and the catalogs live inside .index/, claim- inside .staging/.
    expect(taskClassCatalogPath("/s/runs", "vuln-remediation")).toBe("/s/runs/.index/catalog.vuln-remediation.json");
    expect(
      Object.values(RUNS_NAMES)
        .filter((name) => !["head.json", "history.json", "catalog.", "claim-"].includes(name))
        .every((name) => name.startsWith(".")),
    ).toBe(true);
    expect(
      Object.values(RUN_DIR_NAMES)
        .filter((name) => name !== "cases")
        .every((name) => name.startsWith(".")),
    ).toBe(true);
  });

  it("names a task class's transcript file and the stream logs beside it", () => {
    expect(transcriptFile("/s/transcripts", "vuln-remediation")).toBe("/s/transcripts/vuln-remediation.jsonl");
    expect(transcriptStreamsDir("/s/transcripts")).toBe("/s/transcripts/streams");
  });
});
