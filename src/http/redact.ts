/**
 * Cutting API keys out of text bound for the logs, however they are spelled. A key is
 * `iv_live_…`/`iv_test_…` and 43 base62 characters; a client may send one percent-encoded, in whole or
 * in part, once or several times over (`%69v_live_…`, `iv%255Flive_…`), or with JSON escapes: what is
 * logged is the URL or text as it arrived, so every spelling that decodes to a key is one.
 */

/**
 * A key once the text is decoded: its prefix, or a mode and a key's 43 characters (a prefix mangled on
 * the way — a backslash turned into a slash — still leaves the secret).
 */
const DECODED_KEY = /iv_(live|test)_|(live|test)_[0-9a-z]{43}/i;
/** The value of a query parameter named for a credential, whatever it holds. */
const CREDENTIAL_PARAM = /([?&](?:api[_-]?key|key|token|access_token)=)[^&#]*/gi;
/**
 * A stretch of text that may spell a key: word characters with percent and JSON escapes. Any other
 * character (`/`, `=`, `&`, a space) ends it, and cannot be part of a key in any spelling.
 */
const SPELLING = /[%\\\w]+/g;
const ESCAPE = /%([0-9a-f]{2})|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})/gi;
/** Rounds of decoding tried: `%25` nested deeper than this is not a spelling any server would decode. */
const MAX_DECODES = 8;

const decodeOnce = (text: string) =>
  text.replace(ESCAPE, (_, pct?: string, u?: string, x?: string) =>
    String.fromCharCode(Number.parseInt(pct ?? u ?? x ?? '', 16)),
  );

/** The stretch, redacted when it decodes to a key (the whole stretch: its spelling may hide where). */
function redactSpelling(run: string): string {
  let text = run;
  for (let round = 0; round <= MAX_DECODES; round += 1) {
    const key = DECODED_KEY.exec(text);
    if (key) return `iv_${(key[1] ?? key[2] ?? '').toLowerCase()}_[redacted]`;
    if (!text.includes('%') && !text.includes('\\')) break;
    const next = decodeOnce(text);
    if (next === text) break;
    text = next;
  }
  return run;
}

/** Keys in any spelling, and the values of credential query parameters, replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  return text.replace(SPELLING, redactSpelling).replace(CREDENTIAL_PARAM, '$1[redacted]');
}

/** The deepest a logged object is walked; deeper values are logged as they are. */
const MAX_WALK_DEPTH = 8;

/**
 * Plain objects and arrays logged as fields (headers, bodies, options), with every string redacted.
 * Class instances (errors, requests) are left to their serializers, which redact what they show.
 */
export function redactValues(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (depth >= MAX_WALK_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValues(item, depth + 1));
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [name, redactValues(item, depth + 1)]),
  );
}
