// JUnit files checked the way a CI server reads them: validated against the JUnit XML schema (libxml2's
// xmllint, as WebAssembly) and their counts recomputed from the testcases.
import { readFileSync } from "node:fs";
import { validateXML } from "xmllint-wasm";

const SCHEMA = readFileSync(new URL("./junit-schema.xsd", import.meta.url), "utf8");

export interface JunitCheck {
  /** Schema violations (empty when the file validates). */
  readonly errors: readonly string[];
  /** The suite's attributes as numbers. */
  readonly declared: {
    readonly tests: number;
    readonly failures: number;
    readonly errors: number;
    readonly skipped: number;
  };
  /** The same figures counted from the testcases. */
  readonly counted: {
    readonly tests: number;
    readonly failures: number;
    readonly errors: number;
    readonly skipped: number;
  };
}

/** Validates `xml` against the JUnit schema and counts its testcases, failures, errors and skipped ones. */
export async function checkJunit(xml: string): Promise<JunitCheck> {
  const result = await validateXML({
    xml: [{ fileName: "junit.xml", contents: xml }],
    schema: [{ fileName: "junit.xsd", contents: SCHEMA }],
  });
  const suite = /<testsuite ([^>]*)>/.exec(xml)?.[1] ?? "";
  const attribute = (name: string): number => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1] ?? Number.NaN);
  const count = (pattern: RegExp): number => xml.match(pattern)?.length ?? 0;
  return {
    errors: result.errors.map((error) => error.rawMessage),
    declared: {
      tests: attribute("tests"),
      failures: attribute("failures"),
      errors: attribute("errors"),
      skipped: attribute("skipped"),
    },
    counted: {
      tests: count(/<testcase /g),
      failures: count(/<failure /g),
      errors: count(/<error /g),
      skipped: count(/<skipped /g),
    },
  };
}
