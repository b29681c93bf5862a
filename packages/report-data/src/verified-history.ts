// The chain as the views and a verdict read it: verified from its checkpoint (the records appended since are
// verified, not the whole history), and a task class's catalog at exactly that head. A verdict lists what it
// pools from the catalog only when the catalog stands at the head just verified; otherwise it reads every
// record, as it would with no index. `evalgate verify` stays the full walk.
import type { WarningSink } from "@eval/errors";
import type { EvidenceCatalog } from "@eval/promotion";
import { verifyChainForRun } from "@eval/runner";
import type { RunChainCheck } from "@eval/runner";
import { stateLayout } from "@eval/state-layout";
import { readHistory } from "./history-index.ts";
import type { History } from "./history-index.ts";
import { readTaskClassCatalog } from "./task-class-catalog.ts";
import type { TaskClassCatalog, VerifiedHead } from "./task-class-catalog.ts";

export interface CheckedChain {
  readonly chain: RunChainCheck;
  /** The head just verified, or undefined when the chain did not verify (or is empty). */
  readonly head: VerifiedHead | undefined;
  /** The history index at that head, read once when first asked for. */
  readonly history: () => Promise<History>;
}

/** The chain checked from its checkpoint, with the history index read on demand at the head it verified. */
export async function checkedChain(stateDir: string, onWarning: WarningSink): Promise<CheckedChain> {
  const chain = await verifyChainForRun({ stateDir, runsDir: stateLayout(stateDir).runs, onWarning, bestEffort: true });
  const head =
    chain.ok && chain.headFile !== null
      ? { records: chain.skipped + chain.records, head: chain.head, file: chain.headFile }
      : undefined;
  let history: Promise<History> | undefined;
  const verifiedHead = head === undefined ? undefined : { records: head.records, head: head.head };
  return { chain, head, history: () => (history ??= readHistory({ stateDir, onWarning, verifiedHead })) };
}

/** `taskClass`'s catalog at the checked head, or undefined (the chain did not verify; the index is not at its head). */
export async function catalogAt(
  stateDir: string,
  checked: CheckedChain,
  taskClass: string,
  onWarning: WarningSink,
): Promise<TaskClassCatalog | undefined> {
  if (checked.head === undefined) return undefined;
  return readTaskClassCatalog({ stateDir, taskClass, verified: checked.head, onWarning, history: checked.history });
}

/** The chain checked from its checkpoint and, when it verified, `taskClass`'s records as a verdict lists them. */
export async function verifiedEvidence(
  stateDir: string,
  taskClass: string,
  onWarning: WarningSink,
): Promise<{ readonly chain: RunChainCheck; readonly catalog: EvidenceCatalog | undefined }> {
  const checked = await checkedChain(stateDir, onWarning);
  const catalog = await catalogAt(stateDir, checked, taskClass, onWarning);
  return { chain: checked.chain, catalog: catalog?.evidence(stateLayout(stateDir).runs, checked.head!) };
}
