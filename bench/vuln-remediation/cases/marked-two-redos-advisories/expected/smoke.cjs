// The case's smoke check: run by the rubric on the tree installed from the registry snapshot.
"use strict";
const assert = require("node:assert/strict");

module.exports = async function smoke(load, scratch) {
  const { renderNotes } = load("./src/render-notes.js");
  assert.equal(renderNotes("# v2").trim(), '<h1 id="v2">v2</h1>');
};
