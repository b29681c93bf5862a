// The chain as the views and a verdict read it: verified from its checkpoint (the records appended since are
// verified, not the whole history), and the history index at exactly that head. The index lists what a verdict
// pools only when it stands at the head just verified; otherwise the verdict reads every record, as it would
// with no index. `evalgate verify` stays the full walk.
import type { WarningSink } from "@eval/errors";
import type { EvidenceCatalog } from "@eval/promotion";
import { verifyChainForRun } from "@eval/runner";
import type { RunChainCheck } from "@eval/runner";
import { stateLayout } from "@eval/state-layout";
import { readHistory } from "./history-index.ts";
import type { History } from "./history-index.ts";

export interface VerifiedHistory {
  readonly chain: RunChainCheck;
  readonly history: History;
  /** The index as a verdict's catalog, or undefined when it is not at the verified head (read every record). */
  readonly catalog: EvidenceCatalog | undefined;
}

/** The chain checked from its checkpoint and the history index checked against that head. */
export async function verifiedHistory(stateDir: string, onWarning: WarningSink): Promise<VerifiedHistory> {
  const runsDir = stateLayout(stateDir).runs;
  const chain = await verifyChainForRun({ stateDir, runsDir, onWarning, bestEffort: true });
  const verifiedHead = chain.ok ? { records: chain.skipped + chain.records, head: chain.head } : undefined;
  const history = await readHistory({ stateDir, onWarning, verifiedHead });
  const atHead =
    chain.ok &&
    history.length === chain.skipped + chain.records &&
    (history.length === 0 || history.head === chain.head);
  return { chain, history, catalog: atHead ? history.catalog(runsDir) : undefined };
}
