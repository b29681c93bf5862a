// Text made safe for the markup it lands in. Everything an agent, a SUT or a rubric wrote passes here
// (or, in the browser, through textContent): it is shown, never interpreted.

/**
 * Text for a terminal: every control character but newline and tab (C0, DEL and C1: escape sequences,
 * carriage returns, backspaces, bells) made visible as `\xNN` instead of obeyed, and the bidirectional
 * controls that reorder what a line seems to say shown as `\uNNNN`. The one sanitizer every
 * human output of evalgate passes what a SUT, an agent or a rubric wrote through (the run table, progress,
 * error and warning lines, show, compare).
 */
export function escapeTerminal(text: string): string {
  return text
    .replace(TERMINAL_CONTROLS, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`)
    .replace(BIDI_CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16)}`);
}

// oxlint-disable-next-line eslint/no-control-regex -- making terminal control characters visible is the point
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

const HTML: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text for HTML element content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML[char]!);
}

/**
 * Text for XML content or a quoted attribute: escaped, and with the characters XML 1.0 cannot hold
 * (control characters, lone surrogates) replaced by U+FFFD, so a parser never rejects the file.
 */
export function escapeXml(text: string): string {
  return escapeHtml(text.replace(NOT_IN_XML, "\uFFFD"));
}

const NOT_IN_XML =
  // oxlint-disable-next-line eslint/no-control-regex -- replacing the control characters XML cannot hold is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text for one cell or line of GitHub-flavoured Markdown: HTML is escaped (GitHub renders inline HTML),
 * Markdown punctuation is backslash-escaped, and line breaks become spaces.
 */
export function escapeMarkdown(text: string): string {
  return escapeHtml(text)
    .replace(/[\\`*_[\]|#~!]/g, (char) => `\\${char}`)
    .replace(/\r?\n/g, " ");
}
