export { chooseEvidence, notDefaultEvidence } from "./evidence.ts";
export { loadTierConfig } from "./tier-config.ts";
export type { TierConfig } from "./tier-config.ts";
export { issueVerdict } from "./issue-verdict.ts";
export { tierVerdicts, loadTiersFor } from "./tier-verdicts.ts";
export type { JudgedTaskClass } from "./judge.ts";
export { attestRun, verifyAttestationFile, writeAttestation } from "./attestation.ts";
export { catalogRunOf } from "./evidence-catalog.ts";
export type { CatalogRun, EvidenceCatalog } from "./evidence-catalog.ts";
