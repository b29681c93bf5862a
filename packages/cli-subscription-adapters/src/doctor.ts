// `adapters doctor` as data: whether one agent CLI is ready to run live (binary, version, the CLI's own
// login check, a fresh compliance report). Runs only version and login-status commands, never a session.
import { tmpdir } from "node:os";
import type { AgentAdapterName } from "@eval/models";
import type { AgentAdapter } from "./adapter-contract.ts";
import { ADAPTERS } from "./adapter-registry.ts";
import { buildCliEnv, readVersion, resolveBinary } from "./binary.ts";
import { findLatestComplianceReport, verifyRecentCompliance } from "./compliance.ts";
import { endpointOrigin } from "./endpoint.ts";
import { checkAuthStatus } from "./trial.ts";

/** One check: passed (true), failed (false) or unknown (null), and what was found. */
export interface ReadinessCheck {
  readonly ok: boolean | null;
  readonly detail: string;
}

export interface AdapterReadiness {
  readonly adapter: AgentAdapterName;
  /** Ready to run live: binary and version found, login not refused, compliance report fresh. */
  readonly ready: boolean;
  readonly binary: ReadinessCheck & { readonly path: string | null };
  readonly version: ReadinessCheck & { readonly value: string | null };
  readonly login: ReadinessCheck;
  readonly compliance: ReadinessCheck & { readonly report_path: string | null };
  /** What the CLI cannot do whatever it is asked (null: nothing known); not part of `ready`. */
  readonly limits: string | null;
}

export interface ReadinessOptions {
  /** The CLI's path; default found on PATH. */
  readonly binaryPath?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `<state>/compliance`. */
  readonly complianceDir: string;
  /** The model endpoint runs will use (`--model-upstream`); default the CLI's base-URL variable, else its provider. */
  readonly modelUpstream?: string | undefined;
}

/** The adapter's login status, from the CLI's own status command (unknown when it has none). */
async function loginCheck(
  adapter: AgentAdapter,
  binaryPath: string,
  env: Readonly<Record<string, string>>,
): Promise<ReadinessCheck> {
  if (adapter.authStatus === undefined)
    return { ok: null, detail: `${adapter.displayName} has no login-status command; a live run will say` };
  const status = await checkAuthStatus(adapter, binaryPath, env, tmpdir(), 20_000);
  return {
    ok: status === "logged_in" ? true : status === "logged_out" ? false : null,
    detail:
      status === "logged_in"
        ? "logged in"
        : status === "logged_out"
          ? `not logged in (run \`${adapter.binaryName} login\`)`
          : "unknown",
  };
}

/** Whether a fresh, passing compliance report exists for this binary, version and endpoint (else the newest one found). */
function complianceCheck(
  name: AgentAdapterName,
  binaryPath: string,
  cliVersion: string,
  complianceDir: string,
  origin: string,
): AdapterReadiness["compliance"] {
  const lookup = { complianceDir, adapter: name, binaryPath, cliVersion, endpointOrigin: origin };
  try {
    const found = verifyRecentCompliance(lookup);
    return {
      ok: true,
      detail: `fresh, ${(found.report.pass_rate * 100).toFixed(1)}% of benign tasks done, against ${origin}, ${found.report.ended_at}`,
      report_path: found.reportPath,
    };
  } catch (error) {
    return {
      ok: false,
      detail: (error as Error).message,
      report_path: findLatestComplianceReport(lookup)?.reportPath ?? null,
    };
  }
}

/** The version the CLI reports, or why it could not be read. */
function versionCheck(
  adapter: AgentAdapter,
  binaryPath: string,
  env: Readonly<Record<string, string>>,
): AdapterReadiness["version"] {
  try {
    const value = readVersion(adapter, binaryPath, env);
    return { ok: true, detail: value, value };
  } catch (error) {
    return { ok: false, detail: (error as Error).message, value: null };
  }
}

/** Checks one adapter in order (binary, version, login, compliance); a check whose input is missing is not run. */
export async function checkAdapterReadiness(
  name: AgentAdapterName,
  options: ReadinessOptions,
): Promise<AdapterReadiness> {
  const adapter = ADAPTERS[name];
  let binary: AdapterReadiness["binary"];
  try {
    const path = resolveBinary(adapter, { binaryPath: options.binaryPath, env: options.env });
    binary = { ok: true, detail: path, path };
  } catch (error) {
    binary = { ok: false, detail: (error as Error).message, path: null };
  }
  let version: AdapterReadiness["version"] = { ok: null, detail: "not checked: no binary", value: null };
  let login: ReadinessCheck = { ok: null, detail: "not checked: no binary" };
  let compliance: AdapterReadiness["compliance"] = { ok: null, detail: "not checked: no version", report_path: null };
  if (binary.path !== null) {
    const env = buildCliEnv(adapter, options.env);
    version = versionCheck(adapter, binary.path, env);
    login = await loginCheck(adapter, binary.path, env);
    if (version.value !== null)
      compliance = complianceCheck(
        name,
        binary.path,
        version.value,
        options.complianceDir,
        endpointOrigin(name, env, options.modelUpstream),
      );
  }
  const ready = binary.ok === true && version.ok === true && login.ok !== false && compliance.ok === true;
  return { adapter: name, ready, binary, version, login, compliance, limits: adapter.uneditableFiles?.reason ?? null };
}
