import type { SettingSources, Settings } from "./config.ts";

/** Loads the settings module (and zod with it) only when a command runs, never for `--help`. */
export async function loadSettings(sources: SettingSources): Promise<Settings> {
  const { Settings } = await import("./config.ts");
  return new Settings(sources);
}
