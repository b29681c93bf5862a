// The case's smoke check: run by the rubric on the tree installed from the registry snapshot.
"use strict";
const assert = require("node:assert/strict");

module.exports = async function smoke(load, scratch) {
  const { download } = load("./src/download.js");
  assert.equal(typeof download, "function");
  assert.equal(typeof load("follow-redirects").https.get, "function");
};
