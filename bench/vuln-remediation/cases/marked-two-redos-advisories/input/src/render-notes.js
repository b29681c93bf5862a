const { marked } = require("marked");

// Renders release notes written in Markdown.
function renderNotes(markdown) {
  return marked.parse(markdown);
}

module.exports = { renderNotes };
