/** A valid RubricRequest for tests. */
export const VALID_REQUEST = {
  schema_version: "evalgate.rubric_request.v1",
  case: {
    case_id: "case-01",
    task_class: "demo",
    disposition: "positive",
    difficulty: "easy",
    source: "curated",
    curation_class: "held-out",
    added_at: "2026-11-01T00:00:00Z",
    last_validated_at: "2026-11-20T00:00:00Z",
    cassette_canary_pin: "0123456789abcdef0123456789abcdef",
    case_path: "/bench/demo/cases/case-01",
    input_path: "/bench/demo/cases/case-01/input",
    expected_path: "/bench/demo/cases/case-01/expected",
    cassette_path: null,
    case_digest: `blake3:${"a".repeat(64)}`,
  },
  harness_output: { answer: "HELLO", cost_usd: 0.5 },
  context: { workspace_path: "/tmp/ws" },
};
