/**
 * Company-name normalization shared by the resolver and the alias curation tools.
 *
 * GROUP decision: GROUP is usually part of the name itself ("CARLYLE GROUP", "MINBURN TECHNOLOGY
 * GROUP"), so it is kept; it is dropped only when it trails another legal suffix ("ACME HOLDINGS
 * GROUP", "ACME LTD GROUP"), where it is boilerplate. The resolver gives GROUP a low weight anyway.
 */

const LEGAL_SUFFIXES: readonly (readonly string[])[] = [
  ['INC'],
  ['INCORPORATED'],
  ['CORP'],
  ['CORPORATION'],
  ['CO'],
  ['COMPANY'],
  ['LLC'],
  ['L', 'L', 'C'],
  ['LP'],
  ['L', 'P'],
  ['LLP'],
  ['LTD'],
  ['LIMITED'],
  ['PLC'],
  ['HOLDINGS'],
  ['HOLDING'],
  ['NA'],
  ['N', 'A'],
  ['SA'],
  ['S', 'A'],
  ['AG'],
  ['NV'],
  ['N', 'V'],
];

/** A dangling conjunction is what is left of "SMITH & CO" once CO is gone. */
const DANGLING = new Set(['AND']);

export function normalizeName(raw: string): string {
  const cleaned = raw
    .toUpperCase()
    // SEC names carry the state of incorporation: "NORTHROP GRUMMAN CORP /DE/".
    .replace(/\/[A-Z]{2,4}\/\s*$/, ' ')
    .replace(/&/g, ' AND ')
    // Dots and apostrophes join ("L.L.C." → LLC, "MACY'S" → MACYS); other punctuation separates.
    .replace(/[.'’`]/g, '')
    .replace(/[^A-Z0-9 ]+/g, ' ');
  const tokens = nameTokens(cleaned);
  if (tokens[0] === 'THE' && tokens.length > 1) tokens.shift();
  stripTrailingSuffixes(tokens);
  return tokens.join(' ');
}

export function nameTokens(norm: string): string[] {
  const tokens: string[] = [];
  for (const part of norm.split(' ')) if (part !== '') tokens.push(part);
  return tokens;
}

/** Mutates `tokens`; always leaves at least one token so a bare "COMPANY" stays searchable. */
function stripTrailingSuffixes(tokens: string[]): void {
  for (;;) {
    const suffixLength = trailingSuffixLength(tokens);
    if (suffixLength > 0 && tokens.length > suffixLength) {
      tokens.length -= suffixLength;
      continue;
    }
    const last = tokens[tokens.length - 1];
    if (last !== undefined && DANGLING.has(last) && tokens.length > 1) {
      tokens.length -= 1;
      continue;
    }
    if (last === 'GROUP' && tokens.length > 2 && trailingSuffixLength(tokens.slice(0, -1)) > 0) {
      tokens.length -= 1;
      continue;
    }
    return;
  }
}

function trailingSuffixLength(tokens: readonly string[]): number {
  for (const suffix of LEGAL_SUFFIXES) {
    if (endsWith(tokens, suffix)) return suffix.length;
  }
  return 0;
}

function endsWith(tokens: readonly string[], suffix: readonly string[]): boolean {
  if (suffix.length > tokens.length) return false;
  const offset = tokens.length - suffix.length;
  for (let i = 0; i < suffix.length; i++) if (tokens[offset + i] !== suffix[i]) return false;
  return true;
}

/** Every single-token legal suffix; the resolver treats them as near-zero-weight words mid-name. */
export const LEGAL_SUFFIX_WORDS: ReadonlySet<string> = new Set(
  LEGAL_SUFFIXES.filter((s) => s.length === 1).map((s) => s[0] ?? ''),
);
