// The case's smoke check: run by the rubric on the tree installed from the registry snapshot.
"use strict";
const assert = require("node:assert/strict");

module.exports = async function smoke(load, scratch) {
  const { byCustomer } = load("./src/group.js");
  assert.deepEqual(Object.keys(byCustomer([{ customerId: "a" }, { customerId: "b" }, { customerId: "a" }])), ["a", "b"]);
};
