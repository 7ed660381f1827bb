import { MASK } from './mask';

/**
 * Sensitive fields in text that is not (or not only) JSON: prose around a decision, a decision cut
 * off mid-string (a parse error's preview), a decision inside a JSON string (arguments sent as a
 * string). The fields are found by name, whatever tool they belong to: in text that does not parse
 * we cannot tell, so we mask (fail closed).
 */

/**
 * Values shorter than this are masked where located, but not searched for elsewhere: masking a
 * short word ("test") everywhere would mangle ids, labels and prose.
 */
export const MIN_VALUE_LENGTH = 6;
/** JSON inside a JSON string inside a JSON string… is followed this far. */
const MAX_NESTING = 3;

const STRING_LITERAL = /"((?:[^"\\]|\\.)*)"/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `"name": "value` (closed or cut off) for any of the names; group 1 is the escaped value, group 2 the closing quote. */
function fieldPattern(names: ReadonlySet<string>): RegExp {
  const alternatives = [...names].map(escapeRegExp).join('|');
  return new RegExp(`"(?:${alternatives})"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)("?)`, 'g');
}

/** `"name": {` or `"name": [`: a structured sensitive value, whose strings are all sensitive. */
function structuredFieldPattern(names: ReadonlySet<string>): RegExp {
  const alternatives = [...names].map(escapeRegExp).join('|');
  return new RegExp(`"(?:${alternatives})"\\s*:\\s*(?=[[{])`, 'g');
}

function decode(escaped: string): string {
  try {
    return JSON.parse(`"${escaped}"`) as string;
  } catch {
    // Cut off after a backslash, or an invalid escape: the text as written is what could leak.
    return escaped;
  }
}

/** The end of a bracketed value starting at `start` (or the end of the text when it is cut off). */
function endOfBracketed(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/** The (decoded) values of sensitive fields found in the text, at any JSON-string nesting. */
export function sensitiveValuesInText(text: string, names: ReadonlySet<string>, nesting = 0): string[] {
  if (names.size === 0 || !text.includes('"')) return [];
  const found = new Set<string>();
  for (const m of text.matchAll(fieldPattern(names))) {
    const escaped = m[1] ?? '';
    if (escaped !== '') found.add(decode(escaped));
  }
  for (const m of text.matchAll(structuredFieldPattern(names))) {
    const start = (m.index ?? 0) + m[0].length;
    const inner = text.slice(start, endOfBracketed(text, start));
    for (const s of inner.matchAll(STRING_LITERAL)) if ((s[1] ?? '') !== '') found.add(decode(s[1] ?? ''));
  }
  if (nesting < MAX_NESTING) {
    for (const s of text.matchAll(STRING_LITERAL)) {
      const literal = s[1] ?? '';
      if (literal.includes('\\"')) for (const v of sensitiveValuesInText(decode(literal), names, nesting + 1)) found.add(v);
    }
  }
  return [...found];
}

/** The forms a value takes in text: as is, and JSON-escaped once and twice. */
function formsOf(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [...new Set([value, once, twice])];
}

/**
 * The text with sensitive fields masked where they are (whatever their length), then every other
 * occurrence of the given values (long enough to search for) masked too.
 */
export function maskSensitiveText(text: string, names: ReadonlySet<string>, values: readonly string[]): string {
  let out = names.size === 0 ? text : text.replace(fieldPattern(names), (match: string, escaped: string, close: string) =>
    escaped === '' ? match : `${match.slice(0, match.length - escaped.length - close.length)}${MASK}${close}`,
  );
  const needles = [...new Set(values.filter((v) => v.length >= MIN_VALUE_LENGTH).flatMap(formsOf))].sort((a, b) => b.length - a.length);
  for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join(MASK);
  return out;
}
