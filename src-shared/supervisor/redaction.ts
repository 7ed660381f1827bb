import { checkWalkDepth } from '../util/json-depth';
import { MASK } from '../util/mask';
import { maskSensitiveText } from '../util/sensitive-text';
import { setOwn } from '../util/set-own';

/**
 * Redaction for escalations (seed 004 design §6.1): an Escalation is public, so it is built from
 * values that already passed through here. Two layers:
 * - every value the run's secret registry handed out (keychain values, resolved credentials) is
 *   masked wherever it occurs, in strings and in keys;
 * - fields whose name says they hold a credential are masked whole, in objects and in `name=value`
 *   / `"name": "value"` text. Names are judged by their words, not by fragments, so `max_tokens`,
 *   `prompt_tokens`, `token_count` and `author` keep their values (NodeTool's fragment regex masks
 *   them, which hides exactly what a supervisor needs to judge a truncation).
 */

/** A word that alone makes a field sensitive. */
const SENSITIVE_WORDS = new Set([
  'password', 'passwd', 'pwd', 'passphrase', 'secret', 'secrets', 'authorization', 'auth', 'apikey', 'credential', 'credentials', 'cookie', 'privatekey',
]);
/** Words that make a following `key` a credential (`api_key`, `X-Api-Key`, `private_key`). */
const KEY_QUALIFIERS = new Set(['api', 'private', 'secret', 'access', 'signing', 'encryption', 'client']);

/** `X-Api-Key` → [x, api, key]; `accessToken` → [access, token]; `max_tokens` → [max, tokens]. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
}

/**
 * Whether a field name holds a credential. `token` counts only as the last word (`access_token`,
 * `csrf_token`, `token`): first (`token_count`) or plural (`max_tokens`) it names a count.
 */
export function isSensitiveFieldName(name: string): boolean {
  const words = wordsOf(name);
  if (words.length === 0) return false;
  if (words.some((w) => SENSITIVE_WORDS.has(w))) return true;
  if (words.at(-1) === 'token') return true;
  return words.some((w, i) => w === 'key' && i > 0 && KEY_QUALIFIERS.has(words[i - 1] ?? ''));
}

/**
 * `name=`, `name: `, `"name": "` in free text (an error message, a log line): a name and what
 * assigns to it. The name is bounded (128 characters): unbounded, a long run of name characters
 * with no `=` after it (a base64 blob in a model's output) made every start scan to its end — quadratic.
 */
const ASSIGNED_NAME = /([A-Za-z][A-Za-z0-9_.-]{0,127})(["']?\s*[:=]\s*["']?)/g;
/** The value after it: up to a space, a quote or a separator. */
const ASSIGNED_VALUE = /^[^\s"',;}&]+/;

/** Masks the value after every credential name; other names (`failed:`, `max_tokens=`) are passed over, not consumed. */
function maskAssignments(text: string): string {
  let out = '';
  let from = 0;
  for (const m of text.matchAll(ASSIGNED_NAME)) {
    const start = (m.index ?? 0) + m[0].length;
    if (start <= from || !isSensitiveFieldName(m[1] ?? '')) continue;
    const value = ASSIGNED_VALUE.exec(text.slice(start))?.[0];
    if (value === undefined || value === MASK) continue;
    out += `${text.slice(from, start)}${MASK}`;
    from = start + value.length;
  }
  return out + text.slice(from);
}
/** An auth scheme and its token: `Bearer eyJ…`. */
const AUTH_SCHEME = /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/-]+=*)/gi;

function redactText(text: string, secrets: readonly string[]): string {
  // Registry values first (longest first, in every JSON-escaped form), then named fields.
  const valuesMasked = maskSensitiveText(text, new Set(), secrets);
  return maskAssignments(valuesMasked).replace(AUTH_SCHEME, (_m: string, scheme: string, space: string) => `${scheme}${space}${MASK}`);
}

/**
 * A redacted copy of any JSON-like value. `secrets` are the registry's values (only values of at
 * least 6 characters are searched for inside text; see util/sensitive-text.ts); a string that is
 * exactly a secret is masked whatever its length.
 */
export function redactForEscalation<T>(value: T, secrets: readonly string[]): T {
  const exact = new Set(secrets.filter((s) => s.length > 0));
  return walk(value, [...exact], exact, 0) as T;
}

function walk(value: unknown, secrets: readonly string[], exact: ReadonlySet<string>, depth: number): unknown {
  checkWalkDepth(depth);
  if (typeof value === 'string') return exact.has(value) ? MASK : redactText(value, secrets);
  if (Array.isArray(value)) return value.map((v) => walk(v, secrets, exact, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = exact.has(k) ? MASK : redactText(k, secrets);
    setOwn(out, key, isSensitiveFieldName(k) && v !== null && v !== undefined ? MASK : walk(v, secrets, exact, depth + 1));
  }
  return out;
}
