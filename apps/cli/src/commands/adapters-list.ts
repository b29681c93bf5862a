import { Command } from "clipanion";
import { ADAPTER_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { formatOption } from "../options.ts";

export class AdaptersListCommand extends EvalgateCommand {
  static override paths = [["adapters", "list"]];
  static override usage = Command.Usage({
    category: "Agents",
    description: "List the agent-CLI adapters, what each needs, and whether its binary is on PATH",
    examples: [
      ["List adapters as JSON lines", "evalgate adapters list"],
      ["As a table", "evalgate adapters list --format human"],
    ],
  });

  format = formatOption();

  protected async run(): Promise<number> {
    const format = (
      await loadSettings({ flags: { format: this.format }, env: this.context.env, cwd: this.context.cwd })
    ).format();
    const { ADAPTERS, resolveBinary } = await import("@eval/cli-subscription-adapters");
    const { binaryFor } = await import("./adapters-shared.ts");
    const rows = Object.values(ADAPTERS).map((adapter) => {
      let binaryPath: string | null = null;
      try {
        binaryPath = resolveBinary(adapter, {
          binaryPath: binaryFor(this.context, adapter.name, undefined),
          env: this.context.env,
        });
      } catch {
        binaryPath = null;
      }
      return {
        type: "adapter",
        schema_version: ADAPTER_LINE_SCHEMA_VERSION,
        adapter: adapter.name,
        display_name: adapter.displayName,
        binary: adapter.binaryName,
        binary_path: binaryPath,
        npm_package: adapter.npmPackage,
        stream_format: adapter.streamFormat,
        sut: `cli:${adapter.name}`,
        capabilities: adapter.capabilities,
      };
    });
    if (format === "human") {
      for (const row of rows) {
        this.context.stdout.write(
          `${row.adapter.padEnd(12)} ${row.display_name.padEnd(12)} ${(row.binary_path ?? `not found (npm i -g ${row.npm_package})`).padEnd(50)} prompt via ${row.capabilities.prompt_via}\n`,
        );
      }
    } else for (const row of rows) this.emit(row);
    return 0;
  }
}
