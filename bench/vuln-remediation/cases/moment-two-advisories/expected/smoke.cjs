// The case's smoke check: run by the rubric on the tree installed from the registry snapshot.
"use strict";
const assert = require("node:assert/strict");

module.exports = async function smoke(load, scratch) {
  const { formatInvoiceDate } = load("./src/format-date.js");
  assert.equal(formatInvoiceDate("2024-03-05T00:00:00Z", "en"), "March 5, 2024");
};
