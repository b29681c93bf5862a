// The task class's minimums a verdict needs, loaded from the bench root; a task class that cannot be
// loaded gives a reason instead (the views then show no verdict, and say why).
import { loadTaskClass, TaskClassRegistry } from "@eval/registry";
import type { WarningSink } from "@eval/errors";
import type { JudgedTaskClass } from "@eval/promotion";

export type TaskClassForVerdicts = JudgedTaskClass | { readonly unavailable: string };

export async function taskClassForVerdicts(
  name: string,
  benchRoot: string,
  onWarning: WarningSink,
): Promise<TaskClassForVerdicts> {
  try {
    return await loadTaskClass(name, { benchRoot, registry: new TaskClassRegistry(), onWarning });
  } catch (error) {
    return { unavailable: (error as Error).message };
  }
}
