// The case's smoke check: run by the rubric on the tree installed from the registry snapshot.
"use strict";
const assert = require("node:assert/strict");

module.exports = async function smoke(load, scratch) {
  const { args } = load("./src/cli-args.js");
  assert.equal(args(["--port", "9090"]).port, 9090);
  assert.equal(args([]).port, 8080);
};
