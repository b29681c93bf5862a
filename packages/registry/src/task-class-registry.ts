import { TaskClassAlreadyRegistered, TaskClassNotFound } from "./errors.ts";
import type { TaskClass } from "./task-class.ts";

/** Task classes by name. One name, one registration: a second origin for a name is an error. */
export class TaskClassRegistry {
  readonly #classes = new Map<string, TaskClass>();

  /**
   * Adds a task class. Registering the same registration file again returns the existing entry
   * (loading twice is harmless); another origin for the same name throws TaskClassAlreadyRegistered.
   */
  register(taskClass: TaskClass): TaskClass {
    const existing = this.#classes.get(taskClass.name);
    if (existing !== undefined) {
      if (existing.registrationPath === taskClass.registrationPath) return existing;
      throw new TaskClassAlreadyRegistered(taskClass.name, existing.registrationPath, taskClass.registrationPath);
    }
    this.#classes.set(taskClass.name, taskClass);
    return taskClass;
  }

  /** The named class; throws TaskClassNotFound listing what is registered. */
  get(name: string): TaskClass {
    const found = this.#classes.get(name);
    if (found === undefined) throw new TaskClassNotFound(name, [...this.#classes.keys()].sort(), null);
    return found;
  }

  has(name: string): boolean {
    return this.#classes.has(name);
  }

  /** Every registered class, sorted by name. */
  all(): readonly TaskClass[] {
    return [...this.#classes.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

/** The process-wide registry the CLI uses; tests make fresh `new TaskClassRegistry()`s. */
export const defaultRegistry = new TaskClassRegistry();
