import { registerTaskClass, type TaskClassRegistration } from "@eval/registry";

// 12 held-out cases ship: within bronze's floor (10 cases, 5 held out; docs/trust-tiers.yaml), below
// silver's (15 cases). Bronze asks for 10 passing cases of the 12. Grow the bench past 15 cases before
// declaring silver.
const registration: TaskClassRegistration = registerTaskClass("migration-chainguard-distroless", {
  min_cases_for_promotion: { bronze: 10 },
  min_cases: 6,
  description:
    "Migrate a service's Dockerfile to a Chainguard (or distroless) runtime image: builder stage, minimal non-root final stage, exec-form command, same ports and artifacts, pinned images.",
});

export default registration;
