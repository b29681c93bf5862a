// What a verdict needs to know of every record of a task class without reading it: the pooling key (SUT,
// rubric, isolation, corpus, score kind, report version), the cases it holds and who signed it. The chain
// itself is a catalog (every record read, oldest first); the history index is a faster one. Either way the
// records a verdict pools are read from the chain and judged on their own content, never on the catalog's.
import { listRuns, readRecordFile, recordsNewestFirst } from "@eval/audit-chain";
import type { AnyBenchRunReport, ChainRecord } from "@eval/models";

/** A recorded case as pooling matches it: its id and, where recorded, its content digest. */
export type CaseRef = readonly [caseId: string, caseDigest: string | null];

/** The fields of a report that decide whether it is pooled with a judged run (compared as recorded). */
export interface PoolingKey {
  readonly schema_version: AnyBenchRunReport["schema_version"];
  readonly sut_digest: string;
  readonly rubric_digest?: string | null;
  readonly isolation_class?: string | null;
  readonly sut_isolation?: string | null;
  readonly cassette_corpus_digest?: string | null;
  readonly score_kind?: string | null;
}

/** One record of the chain as a catalog lists it. */
export interface CatalogRun {
  /** The record's file name in the runs directory. */
  readonly file: string;
  readonly run_id: string;
  readonly key: PoolingKey;
  readonly cases: readonly CaseRef[];
  /** The key id of the record's signature, or null when it is unsigned. */
  readonly signer: string | null;
}

export interface EvidenceCatalog {
  /** The task class's records, oldest first. */
  runs(taskClass: string): AsyncIterable<CatalogRun> | Iterable<CatalogRun>;
  /** The task class's records, newest first (a verdict's choice of run reads from the newest back). */
  newestFirst(taskClass: string): AsyncIterable<CatalogRun> | Iterable<CatalogRun>;
  /** The chain's head as verified when the catalog was read (its file and record count); absent: found by listing. */
  readonly head?: { readonly file: string; readonly records: number };
  /** The record in `file`, read from the chain (throws ChainTampered when it is not a valid record). */
  read(file: string): Promise<ChainRecord>;
}

/** The pooling key of a report, its fields copied as recorded (a missing field stays missing). */
export function poolingKeyOf(report: AnyBenchRunReport): PoolingKey {
  const r = report as Partial<Record<keyof PoolingKey, string | null>>;
  const key: Record<string, unknown> = { schema_version: report.schema_version, sut_digest: report.sut_digest };
  for (const field of ["rubric_digest", "isolation_class", "sut_isolation", "cassette_corpus_digest", "score_kind"]) {
    const value = r[field as keyof PoolingKey];
    if (value !== undefined) key[field] = value;
  }
  return key as unknown as PoolingKey;
}

/** The cases a report holds, in its order. */
export function caseRefsOf(report: AnyBenchRunReport): CaseRef[] {
  return report.per_case.map((entry) => [
    entry.case_id,
    "case_digest" in entry && typeof entry.case_digest === "string" ? entry.case_digest : null,
  ]);
}

/** What a catalog keeps of one record. */
export function catalogRunOf(record: ChainRecord, file: string): CatalogRun {
  return {
    file,
    run_id: record.report.run_id,
    key: poolingKeyOf(record.report),
    cases: caseRefsOf(record.report),
    signer: record.signature?.key_id ?? null,
  };
}

/** The chain as its own catalog: every record read once, oldest first; the one just listed is read from memory. */
export function chainCatalog(runsDir: string): EvidenceCatalog {
  let last: { file: string; record: ChainRecord } | null = null;
  return {
    async *runs(taskClass: string): AsyncGenerator<CatalogRun> {
      for (const file of (await listRuns(runsDir)).records) {
        const { record } = readRecordFile(runsDir, file);
        if (record.report.task_class !== taskClass) continue;
        last = { file, record };
        yield catalogRunOf(record, file);
      }
    },
    async *newestFirst(taskClass: string): AsyncGenerator<CatalogRun> {
      for await (const found of recordsNewestFirst(runsDir, taskClass)) {
        last = { file: found.file, record: found.record };
        yield catalogRunOf(found.record, found.file);
      }
    },
    read: async (file) => (last !== null && last.file === file ? last.record : readRecordFile(runsDir, file).record),
  };
}
