// Builds the workspace (tsc -b, incremental: about a second when little changed) before any test, because
// some tests spawn real processes (rubric subprocesses, the evalgate binary, packed tarballs) that load
// packages from their built `dist/`, exactly as users do.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export default function setup(): void {
  const root = join(import.meta.dirname, "..");
  execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-b", "tsconfig.json"], { cwd: root, stdio: "inherit" });
}
