import type { BaseContext } from "clipanion";

/** What every command receives: streams, environment and working directory (injectable for tests). */
export interface EvalgateContext extends BaseContext {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}
