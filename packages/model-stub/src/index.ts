export { probeModelStub, startModelStub } from "./server.ts";
export type { ModelStub } from "./server.ts";
export { loadScenario, parseScenario } from "./scenario.ts";
export type { ScenarioAction } from "./scenario.ts";
