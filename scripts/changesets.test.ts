// Publishing goes through changesets (README "Publishing"): the pending changesets must make a valid
// release plan, the dry run of `changeset version`, and only published packages may be released.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = join(import.meta.dirname, "..");

function manifests(): Map<string, { private?: boolean; version: string }> {
  const dirs = ["packages", "apps", "bench"].flatMap((parent) =>
    readdirSync(join(repo, parent)).map((name) => join(repo, parent, name)),
  );
  const found = new Map<string, { private?: boolean; version: string }>();
  for (const dir of dirs) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name: string;
        private?: boolean;
        version: string;
      };
      found.set(pkg.name, pkg);
    } catch {
      // not a package directory (bench/README.md)
    }
  }
  return found;
}

describe("changesets", () => {
  it(
    "the pending changesets make a release plan that bumps published packages only",
    { timeout: 120_000 },
    async () => {
      const out = mkdtempSync(join(tmpdir(), "evalgate-changesets-"));
      try {
        await run(join(repo, "node_modules", ".bin", "changeset"), ["status", "--output", join(out, "plan.json")], {
          cwd: repo,
        });
        const plan = JSON.parse(readFileSync(join(out, "plan.json"), "utf8")) as {
          changesets: unknown[];
          releases: Array<{ name: string; type: string; oldVersion: string; newVersion: string }>;
        };
        const packages = manifests();
        for (const release of plan.releases) {
          const pkg = packages.get(release.name);
          expect(pkg, release.name).toBeDefined();
          expect(release.oldVersion, release.name).toBe(pkg!.version);
          if (pkg!.private === true) expect(release.type, `${release.name} is private: never released`).toBe("none");
        }
        expect(plan.releases.some((release) => release.name === "evalgate" && release.type !== "none")).toBe(true);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
  );
});
