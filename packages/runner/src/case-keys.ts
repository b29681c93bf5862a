import { cacheKey } from "@eval/cache";
import type { BenchCase, SystemUnderTest } from "@eval/models";
import type { TaskClass } from "@eval/registry";

export interface KeyContext {
  readonly sut: Pick<SystemUnderTest, "digest">;
  readonly taskClass: Pick<TaskClass, "rubricDigest">;
  readonly corpusDigest: string;
  readonly harnessVersion: string;
  readonly isolationClass: string;
  readonly sutIsolation: string;
}

/** The cache key of a case's score: the same for a run, a plan and a shard, so all three agree on it. */
export function caseCacheKey(
  benchCase: Pick<BenchCase, "case_digest" | "cassette_canary_pin">,
  context: KeyContext,
): string {
  return cacheKey({
    case_digest: benchCase.case_digest,
    sut_digest: context.sut.digest,
    rubric_digest: context.taskClass.rubricDigest,
    cassette_corpus_digest: context.corpusDigest,
    // Scores are not invariant under an isolation change, so it is part of the key.
    harness_version: `${context.harnessVersion}+${context.isolationClass}+sut:${context.sutIsolation}`,
    cassette_canary_pin: benchCase.cassette_canary_pin,
  });
}
