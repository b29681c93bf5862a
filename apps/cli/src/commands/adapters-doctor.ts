import { Command, Option } from "clipanion";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";

type Check = { ok: boolean | null; detail: string };

export class AdaptersDoctorCommand extends EvalgateCommand {
  static override paths = [["adapters", "doctor"]];
  static override usage = Command.Usage({
    category: "Agents",
    description: "Check each agent CLI: binary found, version, logged in (the CLI's own check), compliance report fresh",
    details: `
      Runs only the CLIs' version and login-status commands (\`claude auth status\`, \`codex login status\`);
      never a session. Gemini CLI has no status command: its login is reported as unknown. With --adapter,
      exits 1 unless that adapter is ready to run live.
    `,
    examples: [["Check every adapter", "evalgate adapters doctor"], ["Check one, as a table", "evalgate adapters doctor --adapter codex --format human"]],
  });

  adapter = Option.String("--adapter", { description: "Check only this adapter: claude-code, codex, gemini" });
  binary = Option.String("--binary", { description: "The CLI's path (with --adapter); default EVALGATE_CLI_BINARY_<ADAPTER>, then PATH" });
  out = Option.String("--out", { description: "State directory (default .evalgate)" });
  format = Option.String("--format", { description: "jsonl (default) or human" });

  protected async run(): Promise<number> {
    const settings = await loadSettings({ flags: { state_dir: this.out, format: this.format }, env: this.context.env, cwd: this.context.cwd });
    const format = settings.format();
    const stateDir = settings.path("state_dir", ".evalgate");
    const { ADAPTER_NAMES, binaryFor, parseAdapterName } = await import("./adapters-shared.ts");
    const names = this.adapter === undefined ? ADAPTER_NAMES : [parseAdapterName(this.adapter)];
    const lib = await import("@eval/cli-subscription-adapters");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    let allReady = true;
    for (const name of names) {
      const adapter = lib.ADAPTERS[name];
      const binary: Check & { path: string | null } = { ok: false, detail: "", path: null };
      let version: Check & { value: string | null } = { ok: null, detail: "not checked: no binary", value: null };
      let login: Check = { ok: null, detail: "not checked: no binary" };
      let compliance: Check & { report_path: string | null } = { ok: null, detail: "not checked: no version", report_path: null };
      try {
        binary.path = lib.resolveBinary(adapter, { binaryPath: binaryFor(this.context, name, this.binary), env: this.context.env });
        Object.assign(binary, { ok: true, detail: binary.path });
      } catch (error) {
        binary.detail = (error as Error).message;
      }
      if (binary.path !== null) {
        const env = lib.buildCliEnv(adapter, this.context.env);
        try {
          const value = lib.readVersion(adapter, binary.path, env);
          version = { ok: true, detail: value, value };
        } catch (error) {
          version = { ok: false, detail: (error as Error).message, value: null };
        }
        if (adapter.authStatus === undefined) {
          login = { ok: null, detail: `${adapter.displayName} has no login-status command; a live run will say` };
        } else {
          const status = await lib.checkAuthStatus(adapter, binary.path, env, tmpdir(), 20_000);
          login = {
            ok: status === "logged_in" ? true : status === "logged_out" ? false : null,
            detail: status === "logged_in" ? "logged in" : status === "logged_out" ? `not logged in (run \`${adapter.binaryName} login\`)` : "unknown",
          };
        }
        if (version.value !== null) {
          try {
            const found = lib.verifyRecentCompliance({ complianceDir: join(stateDir, "compliance"), adapter: name, binaryPath: binary.path, cliVersion: version.value });
            compliance = { ok: true, detail: `fresh, ${(found.report.pass_rate * 100).toFixed(1)}% parse success, ${found.report.ended_at}`, report_path: found.reportPath };
          } catch (error) {
            const latest = lib.findLatestComplianceReport({ complianceDir: join(stateDir, "compliance"), adapter: name, binaryPath: binary.path, cliVersion: version.value });
            compliance = { ok: false, detail: (error as Error).message, report_path: latest?.reportPath ?? null };
          }
        }
      }
      const ready = binary.ok === true && version.ok === true && login.ok !== false && compliance.ok === true;
      allReady &&= ready;
      if (format === "human") {
        const mark = (check: Check): string => (check.ok === true ? "ok  " : check.ok === false ? "FAIL" : "?   ");
        this.context.stdout.write(`${adapter.displayName} (${name}): ${ready ? "ready" : "not ready"}\n`);
        for (const [label, check] of [["binary", binary], ["version", version], ["login", login], ["compliance", compliance]] as const) {
          this.context.stdout.write(`  ${mark(check)} ${label.padEnd(10)} ${check.detail}\n`);
        }
      } else {
        this.emit({ adapter: name, ready, binary, version, login, compliance });
      }
    }
    return this.adapter !== undefined && !allReady ? 1 : 0;
  }
}
