import type { FastifyInstance } from 'fastify';
import { errors } from './errors.ts';

/**
 * The deepest nesting of arrays and objects a JSON body may have. No operation takes more than four
 * levels (an ingest record's value is at depth three); the rest of the allowance is for clients that
 * wrap. Past it the body is refused before it is parsed: the idempotency fingerprint, the validator and
 * the handlers all walk bodies recursively, and a body thousands of levels deep overflowed their stacks.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/** The index of the quote that closes the string opened at `open`; text.length when there is none. */
function stringEnd(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return text.length;
}

/**
 * Whether JSON text nests arrays and objects deeper than `max`, read without recursion and stopping at
 * the first level past it. Brackets inside strings do not count; malformed text is left to the parser.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i);
    else if (OPENERS.has(c)) {
      depth += 1;
      if (depth > max) return true;
    } else if (CLOSERS.has(c)) depth -= 1;
  }
  return false;
}

/**
 * Replaces the JSON body parser with one that first refuses bodies nested past MAX_JSON_DEPTH (400
 * `invalid_body`), then parses as Fastify does (prototype poisoning refused).
 */
export function installJsonDepthLimit(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
      done(errors.invalidBody(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    parse(request, text, done);
  });
}
