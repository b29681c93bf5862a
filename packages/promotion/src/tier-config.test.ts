import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clopperPearsonLowerBound, fixedBetLowerBound } from "@eval/statistics";
import { loadTierConfig } from "./tier-config.ts";

const REPO_TIERS = join(import.meta.dirname, "..", "..", "..", "docs", "trust-tiers.yaml");
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tiers-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(text: string) {
  const path = join(dir, "trust-tiers.yaml");
  await writeFile(path, text);
  return loadTierConfig(path);
}

const VALID = `schema_version: evalgate.trust_tiers.v1
calibrated: false
tiers:
  - { name: untrusted, threshold: 0, min_cases: 0, min_held_out: 0 }
  - { name: bronze, threshold: 0.6, min_cases: 0, min_held_out: 0 }
  - { name: silver, threshold: 0.8, min_cases: 0, min_held_out: 5 }
current:
  vuln-remediation: bronze
`;

describe("loadTierConfig", () => {
  it("every tier of docs/trust-tiers.yaml is within reach of a perfect run of its minimum size, binary and graded alike", async () => {
    const config = await loadTierConfig(REPO_TIERS);
    for (const tier of config.tiers.filter((t) => t.threshold > 0)) {
      const n = tier.min_cases;
      expect(clopperPearsonLowerBound(n, n), `${tier.name}: ${n} of ${n} (Clopper-Pearson)`).toBeGreaterThanOrEqual(
        tier.threshold,
      );
      expect(
        fixedBetLowerBound(Array<number>(n).fill(1)),
        `${tier.name}: ${n} scores of 1 (fixed bets)`,
      ).toBeGreaterThanOrEqual(tier.threshold);
    }
  });

  it("loads the repository's docs/trust-tiers.yaml: uncalibrated, both shipped task classes at the base tier", async () => {
    const config = await loadTierConfig(REPO_TIERS);
    expect(config.calibrated).toBe(false);
    expect(config.tiers.map((tier) => tier.name)).toEqual(["untrusted", "bronze", "silver", "gold"]);
    expect(config.current).toEqual({ "vuln-remediation": "untrusted", "migration-chainguard-distroless": "untrusted" });
    expect(config.source).toBe(REPO_TIERS);
    expect(Object.isFrozen(config.tiers)).toBe(true);
  });

  it("loads a valid file", async () => {
    expect((await load(VALID)).current["vuln-remediation"]).toBe("bronze");
  });

  it.each([
    [
      "an unknown current tier",
      VALID.replace("vuln-remediation: bronze", "vuln-remediation: platinum"),
      /current\.vuln-remediation: unknown tier "platinum"/,
    ],
    ["a duplicate tier", VALID.replace("name: silver", "name: bronze"), /tiers\.2\.name: duplicate tier "bronze"/],
    [
      "a dropping threshold",
      VALID.replace("threshold: 0.8", "threshold: 0.5"),
      /tiers\.2\.threshold: tiers are ordered lowest first/,
    ],
    ["an unknown field", `${VALID}auto_promote: true\n`, /\(root\).*auto_promote|auto_promote/],
    ["a threshold above 1", VALID.replace("threshold: 0.8", "threshold: 1.8"), /tiers\.2\.threshold/],
    ["a missing calibrated flag", VALID.replace("calibrated: false\n", ""), /calibrated/],
    ["broken YAML", "tiers: [\n", /is not valid YAML/],
  ])("rejects %s naming the file and field", async (_label, text, message) => {
    const attempt = load(text);
    await expect(attempt).rejects.toMatchObject({ code: "EVAL_TIER_CONFIG_INVALID" });
    await expect(attempt).rejects.toThrow(message);
    await expect(attempt).rejects.toThrow(/trust-tiers\.yaml/);
  });

  it("names a missing file", async () => {
    await expect(loadTierConfig(join(dir, "nope.yaml"))).rejects.toThrow(
      /cannot read the trust-tiers file .*nope\.yaml: ENOENT/,
    );
  });

  it("gives null for a missing file when optional (the fence's default floor), and still rejects a bad one", async () => {
    expect(await loadTierConfig(join(dir, "nope.yaml"), { optional: true })).toBeNull();
    await writeFile(join(dir, "bad.yaml"), "a: [\n");
    await expect(loadTierConfig(join(dir, "bad.yaml"), { optional: true })).rejects.toMatchObject({
      code: "EVAL_TIER_CONFIG_INVALID",
    });
    expect((await loadTierConfig(REPO_TIERS, { optional: true }))?.tiers.length).toBeGreaterThan(0);
  });
});
