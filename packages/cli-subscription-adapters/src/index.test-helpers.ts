// Test fixtures other packages' tests use (`@eval/cli-subscription-adapters/test-helpers`, a source-only
// export that is never built or published): fake agent CLIs, their recorded streams, compliance reports and
// a scripted model upstream.
export { writeReport } from "./compliance.test-helpers.ts";
export { createFakeCli, readStream } from "./fake-cli.test-helpers.ts";
export type { FakeStep } from "./fake-cli.test-helpers.ts";
export { startAnthropicUpstream } from "./bridge.test-helpers.ts";
