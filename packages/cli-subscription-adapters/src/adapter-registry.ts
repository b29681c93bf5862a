import type { AgentAdapterName } from "@eval/models";
import type { AgentAdapter } from "./adapter-contract.ts";
import { claudeCodeAdapter } from "./clis/claude-code.ts";
import { codexAdapter } from "./clis/codex.ts";
import { geminiAdapter } from "./clis/gemini.ts";
import { piAdapter } from "./clis/pi.ts";
import { AgentAdapterInvalid } from "./errors.ts";

/** Every adapter, by name. Adding a CLI: one module under clis/, one line here (docs/adapters.md). */
export const ADAPTERS: Readonly<Record<AgentAdapterName, AgentAdapter>> = Object.freeze({
  "claude-code": claudeCodeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
  pi: piAdapter,
});

export function getAdapter(name: string): AgentAdapter {
  const adapter = (ADAPTERS as Readonly<Record<string, AgentAdapter>>)[name];
  if (adapter === undefined) {
    throw new AgentAdapterInvalid(`no adapter named "${name}"; choose one of: ${Object.keys(ADAPTERS).join(", ")}`, {
      name,
    });
  }
  return adapter;
}
