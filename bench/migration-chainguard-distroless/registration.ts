import { registerTaskClass } from "@eval/registry";

// 7 held-out cases ship. Bronze asks for 5 passing; no silver or gold until the corpus is larger
// (the seed's Phase 7 target is 10+): 7 cases cannot carry a higher claim.
export default registerTaskClass("migration-chainguard-distroless", {
  min_cases_for_promotion: { bronze: 5 },
  min_cases: 6,
  description: "Migrate a service's Dockerfile to a Chainguard (or distroless) runtime image: builder stage, minimal non-root final stage, exec-form command, same ports and artifacts, pinned images.",
});
