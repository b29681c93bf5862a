import { Command, Option } from "clipanion";
import type { AdapterReadiness, ReadinessCheck } from "@eval/cli-subscription-adapters";
import { ADAPTER_READINESS_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { formatOption, stateDirOption } from "../options.ts";
import { DEFAULT_STATE_DIR, stateLayout } from "@eval/state-layout";

export class AdaptersDoctorCommand extends EvalgateCommand {
  static override paths = [["adapters", "doctor"]];
  static override usage = Command.Usage({
    category: "Agents",
    description:
      "Check each agent CLI: binary found, version, logged in (the CLI's own check), compliance report fresh",
    details: `
      Runs only the CLIs' version and login-status commands (\`claude auth status\`, \`codex login status\`);
      never a session. Gemini CLI has no status command: its login is reported as unknown. With --adapter,
      exits 1 unless that adapter is ready to run live.
    `,
    examples: [
      ["Check every adapter", "evalgate adapters doctor"],
      ["Check one, as a table", "evalgate adapters doctor --adapter codex --format human"],
    ],
  });

  adapter = Option.String("--adapter", { description: "Check only this adapter: claude-code, codex, gemini" });
  binary = Option.String("--binary", {
    description: "The CLI's path (with --adapter); default EVALGATE_CLI_BINARY_<ADAPTER>, then PATH",
  });
  modelUpstream = Option.String("--model-upstream", {
    description: "The model endpoint runs will use: its compliance report must be for this origin",
  });
  out = stateDirOption();
  format = formatOption();

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out, format: this.format },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const format = settings.format();
    const complianceDir = stateLayout(settings.path("state_dir", DEFAULT_STATE_DIR)).compliance;
    const { ADAPTER_NAMES, binaryFor, parseAdapterName } = await import("./adapters-shared.ts");
    const names = this.adapter === undefined ? ADAPTER_NAMES : [parseAdapterName(this.adapter)];
    const { ADAPTERS, checkAdapterReadiness } = await import("@eval/cli-subscription-adapters");
    let allReady = true;
    for (const name of names) {
      const readiness = await checkAdapterReadiness(name, {
        binaryPath: binaryFor(this.context, name, this.binary),
        env: this.context.env,
        complianceDir,
        modelUpstream: this.modelUpstream,
      });
      allReady &&= readiness.ready;
      if (format === "human") this.context.stdout.write(formatReadiness(ADAPTERS[name].displayName, readiness));
      else
        this.emit({ type: "adapter_readiness", schema_version: ADAPTER_READINESS_LINE_SCHEMA_VERSION, ...readiness });
    }
    return this.adapter !== undefined && !allReady ? 1 : 0;
  }
}

/** One adapter's readiness as lines: `Codex (codex): ready`, then one line per check. */
function formatReadiness(displayName: string, readiness: AdapterReadiness): string {
  const mark = (check: ReadinessCheck): string => (check.ok === true ? "ok  " : check.ok === false ? "FAIL" : "?   ");
  const { binary, version, login, compliance } = readiness;
  const lines = [`${displayName} (${readiness.adapter}): ${readiness.ready ? "ready" : "not ready"}`];
  for (const [label, check] of [
    ["binary", binary],
    ["version", version],
    ["login", login],
    ["compliance", compliance],
  ] as const)
    lines.push(`  ${mark(check)} ${label.padEnd(10)} ${check.detail}`);
  if (readiness.limits !== null) lines.push(`  note ${"limits".padEnd(10)} ${readiness.limits}`);
  return `${lines.join("\n")}\n`;
}
