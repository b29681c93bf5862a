import { spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import type { AgentAdapter } from "./adapter-contract.ts";
import { AgentAdapterInvalid, AgentBinaryNotFound } from "./errors.ts";

// Generous: Pi 0.73.1 takes 18 s to print its version on a loaded 2-core machine (1 s idle), and a
// version read that times out refuses the whole run.
const VERSION_TIMEOUT_MS = 90_000;

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `EVALGATE_CLI_BINARY_CLAUDE_CODE`, ...: the variable naming an adapter's CLI when it is not on PATH. */
export function binaryEnvName(adapter: string): string {
  return `EVALGATE_CLI_BINARY_${adapter.toUpperCase().replaceAll("-", "_")}`;
}

/** The absolute path of the adapter's CLI: the configured path, or the first match on PATH. */
export function resolveBinary(
  adapter: AgentAdapter,
  options: { readonly binaryPath?: string | undefined; readonly env: Readonly<Record<string, string | undefined>> },
): string {
  if (options.binaryPath !== undefined && options.binaryPath !== "") {
    const path = isAbsolute(options.binaryPath) ? options.binaryPath : resolve(options.binaryPath);
    if (!isExecutableFile(path)) throw new AgentBinaryNotFound(adapter.name, `${path} is not an executable file`);
    return path;
  }
  const dirs = (options.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "");
  for (const dir of dirs) {
    const candidate = join(resolve(dir), adapter.binaryName);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw new AgentBinaryNotFound(adapter.name, `no executable "${adapter.binaryName}" on PATH`);
}

/** Runs the CLI's version command once and returns the version number it prints. */
export function readVersion(adapter: AgentAdapter, binaryPath: string, env: Readonly<Record<string, string>>): string {
  const result = spawnSync(binaryPath, [...adapter.versionArgs], {
    env: { ...env, ...adapter.versionEnv },
    encoding: "utf8",
    timeout: VERSION_TIMEOUT_MS,
    killSignal: "SIGKILL",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = `${result.stdout ?? ""}\n${result.stderr ?? ""}`;
  const version = result.status === 0 ? adapter.parseVersion(output) : null;
  if (version === null) {
    const why =
      result.error !== undefined
        ? result.error.message
        : `exit ${String(result.status ?? result.signal)}: ${output.trim().split("\n")[0] ?? ""}`;
    throw new AgentAdapterInvalid(
      `${binaryPath} ${adapter.versionArgs.join(" ")} did not print a ${adapter.displayName} version (${why.slice(0, 200)})`,
      {
        binaryPath,
      },
    );
  }
  return version;
}

/** Host variables every CLI may see (locale, home, proxies, certificates); adapters add their own. */
const BASE_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "TMPDIR",
  "TZ",
  "LANG",
  "LC_",
  "XDG_",
  "NO_COLOR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
];

function allowed(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => (pattern.endsWith("_") ? name.startsWith(pattern) : name === pattern));
}

/**
 * The CLI's environment: only allowlisted host variables (base set + the adapter's own, such as its
 * API-key variable), plus `extra` (e.g. EVALGATE_BENCH_INVOCATION_TAG). Everything else stays out.
 */
export function buildCliEnv(
  adapter: AgentAdapter,
  hostEnv: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const patterns = [...BASE_ENV, ...adapter.envPassthrough];
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(hostEnv)) {
    if (value !== undefined && allowed(name, patterns)) env[name] = value;
  }
  return { ...env, ...extra };
}
