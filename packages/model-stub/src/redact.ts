import type { IncomingHttpHeaders } from "node:http";

export const REDACTED = "[redacted]";

const SECRET_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "x-goog-api-key",
  "api-key",
  "cookie",
  "openai-organization",
  "chatgpt-account-id",
]);
const SECRET_QUERY = new Set(["key", "api_key", "access_token"]);

/** The values a request carries as credentials: headers (a Bearer token without its scheme) and query keys. */
export function secretsOf(headers: IncomingHttpHeaders, url: URL): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!SECRET_HEADERS.has(name.toLowerCase()) || value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      values.push(item);
      const bearer = /^(?:Bearer|Basic)\s+(.+)$/i.exec(item);
      if (bearer !== null) values.push(bearer[1]!);
    }
  }
  for (const [name, value] of url.searchParams) if (SECRET_QUERY.has(name)) values.push(value);
  return values.filter((value) => value.length >= 4).sort((a, b) => b.length - a.length);
}

export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

export function redactPath(url: URL): string {
  const copy = new URL(url.href);
  for (const name of SECRET_QUERY) if (copy.searchParams.has(name)) copy.searchParams.set(name, REDACTED);
  return `${copy.pathname}${copy.search}`;
}

/** `text` with every secret value replaced (the key may reappear in a body, e.g. echoed by a tool). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  return out;
}
