// The case's smoke check: run by the rubric on the tree installed from the registry snapshot.
"use strict";
const assert = require("node:assert/strict");

module.exports = async function smoke(load, scratch) {
  const { issue, check } = load("./src/tokens.js");
  assert.equal(check(issue("svc-7", "s3cret-s3cret-s3cret-s3cret-s3cret"), "s3cret-s3cret-s3cret-s3cret-s3cret"), "svc-7");
};
