import { registerTaskClass } from "@eval/registry";

// 15 cases ship (7 rag-corpus-derived, 8 held-out). Bronze asks for 10 passing cases; silver for 14,
// i.e. nearly the whole corpus, until the corpus grows. No gold: 15 cases cannot carry that claim.
export default registerTaskClass("vuln-remediation", {
  min_cases_for_promotion: { bronze: 10, silver: 14 },
  min_cases: 12,
  description: "Remediate a real npm security advisory in a small project: package.json and package-lock.json must stop resolving an affected version, with the smallest consistent change.",
});
