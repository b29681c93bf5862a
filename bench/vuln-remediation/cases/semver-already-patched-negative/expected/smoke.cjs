// The case's smoke check: run by the rubric on the tree installed from the registry snapshot.
"use strict";
const assert = require("node:assert/strict");

module.exports = async function smoke(load, scratch) {
  const { sortTags } = load("./src/release-notes.js");
  assert.equal(typeof sortTags, "function");
};
