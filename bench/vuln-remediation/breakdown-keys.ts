/** What the vuln-remediation rubric measures per case; each value is in [0, 1]. */
export const BREAKDOWN_KEYS = [
  /** Share of the case's advisories no longer matched by any locked copy or declared floor. */
  "advisories_fixed",
  /** Share of the vulnerable package's lockfile entries outside every affected range. */
  "lockfile_fixed",
  /** 1 when no package.json declaration (or override) of the package admits an affected version. */
  "manifest_fixed",
  /** 1 when package-lock.json agrees with package.json and with itself. */
  "lockfile_consistent",
  /** 1 when every locked package is the registry's (version, integrity, URL), the tree satisfies every package's real dependencies and, where the case is runnable, the installed tree passes its smoke check. */
  "install_verified",
  /** 1 when only the files and dependencies the fix needs changed. */
  "scope_clean",
  /** 1 when no package moved past the major line the fix needs. */
  "major_line_kept",
] as const;
