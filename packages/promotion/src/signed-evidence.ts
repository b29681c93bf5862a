// Who signed the evidence. A record's signature was checked against its own public key when the chain was
// verified; here it counts only when that key is declared in trust-tiers.yaml's `signers`. Every record of the
// judged SUT on the task class must be signed (stripping a failing run's signature would otherwise drop it from
// signed evidence), and so must the chain's head: a signed record signs its prev_hash, so a signed head vouches
// for every record before it, and a record deleted mid-chain would force re-chaining every later one unsigned.
// Deleting the newest records back to a signed one is truncation: only an anchor (signed too) catches it.
import { keyIdOf, readChainHead } from "@eval/audit-chain";
import type { ChainAnchor, PromotionVerdict } from "@eval/models";
import { chainCatalog } from "./evidence-catalog.ts";
import type { EvidenceCatalog } from "./evidence-catalog.ts";
import type { TierConfig } from "./tier-config.ts";

type Signatures = NonNullable<PromotionVerdict["signatures"]>;

/** Declared signers by key id. */
function declaredSigners(config: TierConfig): Map<string, string> {
  return new Map((config.signers ?? []).map((signer) => [keyIdOf(signer.public_key), signer.name]));
}

/**
 * The signature status of the evidence for `sutDigest` on `taskClass`: every record of that SUT (pooled or
 * not) and the chain's head. `signed` only when each is signed by a declared signer. The records' signers come
 * from `catalog` (default: the chain itself, every record read).
 */
export async function signedEvidence(
  runsDir: string,
  config: TierConfig,
  taskClass: string,
  sutDigest: string,
  anchor?: ChainAnchor,
  catalog: EvidenceCatalog = chainCatalog(runsDir),
): Promise<Signatures> {
  const declared = declaredSigners(config);
  const signers = new Set<string>();
  const notSigned: Signatures["runs_not_signed"][number][] = [];
  let anyUnsigned = false;
  for await (const run of catalog.runs(taskClass)) {
    if (run.key.sut_digest !== sutDigest) continue;
    // Listed as the judged SUT's: the record itself says whose it is and who signed it.
    const { report, signature } = await catalog.read(run.file);
    if (report.sut_digest !== sutDigest) continue;
    const keyId = signature?.key_id ?? null;
    const name = keyId === null ? undefined : declared.get(keyId);
    if (name !== undefined) signers.add(name);
    else notSigned.push({ run_id: run.run_id, key_id: keyId });
    if (keyId === null) anyUnsigned = true;
  }
  const head = await readChainHead(runsDir, catalog.head === undefined ? {} : { at: catalog.head });
  const headKey = head.signature?.key_id ?? null;
  const headSigned = headKey !== null && declared.has(headKey);
  // An anchor the verdict was given must be signed by a declared signer too, or whoever holds the state
  // directory could write an older one.
  const anchorKey = anchor === undefined ? undefined : (anchor.signature?.key_id ?? null);
  const anchorSigned = anchorKey === undefined ? undefined : anchorKey !== null && declared.has(anchorKey);
  const allSigned = notSigned.length === 0 && headSigned && anchorSigned !== false;
  const status = allSigned
    ? "signed"
    : anyUnsigned || headKey === null || anchorKey === null
      ? "unsigned"
      : "untrusted";
  return {
    status,
    signers: [...signers].sort(),
    runs_not_signed: notSigned,
    head_signed: headSigned,
    ...(anchorSigned === undefined ? {} : { anchor_signed: anchorSigned }),
  };
}
