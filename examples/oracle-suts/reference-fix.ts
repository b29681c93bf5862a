#!/usr/bin/env node
// An oracle `command:` SUT for bench authors: it lays the case's own reference fix
// (cases/<case_id>/controls/<reference>/, as controls/controls.json names it) over the workspace. It reads
// the answers, so it is no agent and its runs are no evidence about one: they show what a perfect agent
// scores on the bench, e.g. whether a trust tier's case count and lower bound can be reached at all.
// A SUT never sees the bench, so give it a copy of the cases outside it (argv[2], shown with --sut-read):
//   cp -r bench/vuln-remediation/cases /tmp/answer-key
//   evalgate run --task-class vuln-remediation --sut-read /tmp/answer-key \
//     --sut "command:node examples/oracle-suts/reference-fix.ts /tmp/answer-key"
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";

const cases = process.argv[2];
if (cases === undefined) {
  process.stderr.write("usage: reference-fix.ts <a copy of the bench's cases/ directory>\n");
  process.exit(2);
}
const request = JSON.parse(readFileSync(0, "utf8")) as { case: { case_id: string } };
const controlsDir = join(cases, request.case.case_id, "controls");
const controls = JSON.parse(readFileSync(join(controlsDir, "controls.json"), "utf8")) as { reference: string | null };
// null: the right change is none (a negative case), so the workspace stays as it is.
if (controls.reference !== null) cpSync(join(controlsDir, controls.reference), process.cwd(), { recursive: true });
process.stdout.write(
  `${JSON.stringify({ oracle: "reference-fix", case_id: request.case.case_id, applied: controls.reference })}\n`,
);
