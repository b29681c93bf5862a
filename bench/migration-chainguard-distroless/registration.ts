import { registerTaskClass } from "@eval/registry";

// 7 held-out cases ship: below every tier's floor (10 cases, 5 held out; docs/trust-tiers.yaml), so no
// tier is declared and no verdict can find the evidence sufficient. Declare bronze once the bench holds
// at least 10 cases (the seed's Phase 7 target).
export default registerTaskClass("migration-chainguard-distroless", {
  min_cases_for_promotion: {},
  min_cases: 6,
  description: "Migrate a service's Dockerfile to a Chainguard (or distroless) runtime image: builder stage, minimal non-root final stage, exec-form command, same ports and artifacts, pinned images.",
});
