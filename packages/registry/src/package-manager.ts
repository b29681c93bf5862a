import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** How a project installs and runs packages, by the lockfile it keeps. */
export interface PackageManagerCommands {
  readonly manager: "npm" | "pnpm" | "yarn" | "bun";
  readonly lockfiles: readonly string[];
  /** Runs an installed binary: `npx`, `pnpm exec`, ... */
  readonly run: string;
  /** Adds a development dependency. */
  readonly add: string;
  /** Installs what the manifests declare. */
  readonly install: string;
}

const MANAGERS: readonly PackageManagerCommands[] = [
  { manager: "pnpm", lockfiles: ["pnpm-lock.yaml"], run: "pnpm exec", add: "pnpm add -D", install: "pnpm install" },
  { manager: "yarn", lockfiles: ["yarn.lock"], run: "yarn", add: "yarn add -D", install: "yarn install" },
  { manager: "bun", lockfiles: ["bun.lock", "bun.lockb"], run: "bunx", add: "bun add -d", install: "bun install" },
  {
    manager: "npm",
    lockfiles: ["package-lock.json", "npm-shrinkwrap.json"],
    run: "npx",
    add: "npm install -D",
    install: "npm install",
  },
];
const NPM = MANAGERS.at(-1)!;
const PNPM = MANAGERS[0]!;

/** The package manager whose lockfile is nearest at or above `dir`, and that lockfile's directory (npm and null without one). */
export function packageManagerOf(dir: string): { commands: PackageManagerCommands; root: string | null } {
  for (let at = dir; ; at = dirname(at)) {
    const found = MANAGERS.find((entry) => entry.lockfiles.some((name) => existsSync(join(at, name))));
    if (found !== undefined) return { commands: found, root: at };
    if (dirname(at) === at) return { commands: NPM, root: null };
  }
}

/**
 * One line saying how to make `pkg` importable from `fromDir`: this repository's own set-up script where
 * there is one, else an install (the nearest package.json declares it) or an add, in the project's manager.
 */
export function installHint(fromDir: string, pkg: string): string {
  const { commands, root } = packageManagerOf(fromDir);
  if (root !== null && existsSync(join(root, "scripts", "setup.sh")) && existsSync(join(root, "pnpm-workspace.yaml"))) {
    return `run \`./scripts/setup.sh\` in ${root}: it installs every workspace package's dependencies (${pkg}), bench packages included`;
  }
  const spec = declaredSpec(fromDir, pkg);
  if (spec === null) return `run \`${commands.add} ${pkg}\` in ${root ?? "your project"}: the bench imports it`;
  const manager = spec.startsWith("workspace:") ? PNPM : commands;
  return `run \`${manager.install}\` in ${root ?? "your project"}: the bench's package.json declares ${pkg}, which an install links`;
}

/** The version spec the nearest package.json at or above `dir` declares for `pkg`, or null. */
function declaredSpec(dir: string, pkg: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    const path = join(at, "package.json");
    if (existsSync(path)) {
      try {
        const manifest = JSON.parse(readFileSync(path, "utf8")) as Record<string, Record<string, string> | undefined>;
        return manifest.dependencies?.[pkg] ?? manifest.devDependencies?.[pkg] ?? null;
      } catch {
        return null;
      }
    }
    if (dirname(at) === at) return null;
  }
}
