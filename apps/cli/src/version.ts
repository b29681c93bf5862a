/** evalgate's version, part of every cache key and report. Kept in step with package.json by a test. */
export const HARNESS_VERSION = "0.1.0";
