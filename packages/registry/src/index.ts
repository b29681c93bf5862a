export { registerTaskClass } from "./registration.ts";
/** @public A bench's registration.ts default-exports this type: its declaration must be able to name it. */
export type { TaskClassRegistration } from "./registration.ts";
export type { TaskClass } from "./task-class.ts";
export { TaskClassRegistry } from "./task-class-registry.ts";
export { loadTaskClass, loadAllTaskClasses } from "./task-class-loader.ts";
export { loadCases, selectCases } from "./case-loader.ts";
export { digestDirectory } from "./digest.ts";
export { signBench } from "./sign.ts";
export { readCaseControls, readNearMissKinds } from "./bench-controls.ts";
export type { CaseControls } from "./bench-controls.ts";
export { runFence } from "./fence.ts";
export { TaskClassInvalid } from "./errors.ts";
export { scaffoldTaskClass } from "./scaffold.ts";
