export { MODEL_STUB_IDENTITY_PATH, probeModelStub, startModelStub } from "./server.ts";
export type { ModelStub, ModelStubOptions, StubRequestLog } from "./server.ts";
export { loadScenario, parseScenario } from "./scenario.ts";
export type { Scenario, ScenarioAction, ScenarioSession, ScenarioTurn, Usage } from "./scenario.ts";
