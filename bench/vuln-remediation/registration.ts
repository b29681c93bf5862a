import { registerTaskClass, type TaskClassRegistration } from "@eval/registry";

// 42 cases ship (19 rag-corpus-derived, 23 held-out): past every tier's floor in docs/trust-tiers.yaml
// (gold: 32 cases, 10 held out). Gold asks for 38 passes (0.9 x 42, rounded up): a run that clears gold's
// bound of 0.9 on a graded bench has nearly every case right anyway, and the count keeps a high mean
// from standing in for breadth. A perfect run of the 42 bounds at 0.924 (betting): gold is within reach
// of a strong agent, not given. Bronze and silver keep the passes they asked of the 15-case bench.
// Scores are graded (0.85 for a fix with collateral changes), so the gate bounds the mean score.
const registration: TaskClassRegistration = registerTaskClass("vuln-remediation", {
  min_cases_for_promotion: { bronze: 10, silver: 14, gold: 38 },
  min_cases: 40,
  score_kind: "graded",
  description:
    "Remediate a real npm security advisory in a small project: package.json and package-lock.json must stop resolving an affected version, with the smallest consistent change.",
});

export default registration;
