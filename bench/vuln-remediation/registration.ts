import { registerTaskClass } from "@eval/registry";

// 15 cases ship (7 rag-corpus-derived, 8 held-out): within bronze's and silver's floors (10 and 15 cases,
// 5 held out; docs/trust-tiers.yaml). Bronze asks for 10 passing cases; silver for 14, i.e. nearly the
// whole corpus, until the corpus grows. No gold: its floor is 30 cases with 10 held out.
// Scores are graded (0.85 for a fix with collateral changes), so the gate bounds the mean score.
export default registerTaskClass("vuln-remediation", {
  min_cases_for_promotion: { bronze: 10, silver: 14 },
  min_cases: 12,
  score_kind: "graded",
  description: "Remediate a real npm security advisory in a small project: package.json and package-lock.json must stop resolving an affected version, with the smallest consistent change.",
});
