import { MASK } from '../util/mask';

/**
 * Raw secrets must never be typed into or serialised from a spec or profile (seed 000): config
 * schemas reject values that look like keys and ask for a `keychain:NAME` reference instead.
 * Recognises the common key formats and long random-looking tokens; ordinary text, paths and
 * URLs pass.
 */

/** Key formats recognisable as keys without doubt (their prefix says what issued them), each after a word boundary. */
const KEY_TOKENS: readonly string[] = [
  'sk-(?:proj-|ant-|or-)?[A-Za-z0-9_-]{16,}', // OpenAI, Anthropic, OpenRouter style
  'gh[pousr]_[A-Za-z0-9]{20,}', // GitHub tokens
  'github_pat_[A-Za-z0-9_]{20,}',
  'AKIA[0-9A-Z]{16}\\b', // AWS access key id
  'xox[abposr]-[A-Za-z0-9-]{10,}', // Slack
  'AIza[0-9A-Za-z_-]{30,}', // Google API key
  'glpat-[A-Za-z0-9_-]{20,}', // GitLab
  'hf_[A-Za-z0-9]{30,}', // Hugging Face
  'eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}', // JWT
];
const KNOWN_KEY_PATTERNS: readonly RegExp[] = [...KEY_TOKENS.map((t) => new RegExp(`\\b${t}`)), /-----BEGIN [A-Z ]*PRIVATE KEY-----/];

export function looksLikeRawSecret(value: string): boolean {
  if (KNOWN_KEY_PATTERNS.some((p) => p.test(value))) return true;
  return looksRandom(value.trim());
}

/** A single long token mixing letters and digits with high character variety: a key, not prose. */
function looksRandom(token: string): boolean {
  if (token.length < 32 || /\s/.test(token) || token.includes('/') || token.includes('${')) return false;
  if (!/[a-z]/.test(token) || !/[A-Z0-9]/.test(token) || !/[0-9]/.test(token)) return false;
  const distinct = new Set(token).size;
  return distinct >= 16;
}

/**
 * The known formats where they occur in text, also in JSON text: after a word boundary or after an
 * escape (in the JSON text `"line\nsk-…"` the key follows the letter n of `\n`). A private key goes
 * from its BEGIN line to its END line (or the text's end).
 */
const KEYS_IN_TEXT: readonly RegExp[] = [
  ...KEY_TOKENS.map((t) => new RegExp(`(?:\\b|(?<=\\\\[nrtbf]))${t}`, 'g')),
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];

/** What every known format starts with: one pass that most texts (a whole trace line) fail at once. */
const KEY_START = /sk-|gh[pousr]_|github_pat_|AKIA|xox[abposr]-|AIza|glpat-|hf_|eyJ|PRIVATE KEY-----/;

/** Whether the text (JSON text too) holds a key of a known format anywhere. */
export function holdsKnownKey(text: string): boolean {
  if (!KEY_START.test(text)) return false;
  return KEYS_IN_TEXT.some((p) => {
    p.lastIndex = 0;
    return p.test(text);
  });
}

/**
 * The text with every key of a known format replaced by MASK, as a recorded event shows a sensitive
 * value. Only known formats: the random-token guess (looksLikeRawSecret) would mask hashes, ids and
 * base64 that a trace must keep. Masking twice gives the same text (MASK is no key).
 */
export function maskRawKeys(text: string): string {
  let out = text;
  for (const pattern of KEYS_IN_TEXT) out = out.replace(pattern, MASK);
  return out;
}

/** Where a secret goes instead; the config then holds a `keychain:NAME` reference. */
export const KEYCHAIN_HINT = 'store it in the OS keychain (steward credentials set NAME, or Settings → Credentials)';

export const RAW_SECRET_MESSAGE = `looks like a raw secret: ${KEYCHAIN_HINT} and write keychain:NAME here`;

/** An auth scheme and its token: `Bearer eyJ…`, `Basic dXNlcjpw…`. */
const AUTH_SCHEME = /\b(?:Bearer|Basic)\s+([A-Za-z0-9._~+/-]+=*)/gi;
/** A value given to a name that says secret: `api_key=…`, `"client_secret": "…"`, `X-Api-Key: …`. */
const SECRET_ASSIGNMENT =
  /\b(?:x-api-key|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|token|client[_-]?secret|secret|password|passwd|pwd)\b["']?\s*[:=]\s*["']?([^\s"',;]+)/gi;

/**
 * A password in a URL's userinfo: `postgresql://app:hunter2@db/shop`. It belongs in the OS keychain and
 * reaches the program another way (for PostgreSQL: env PGPASSWORD=keychain:NAME).
 */
const URL_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:([^\s/?#@]+)@/gi;

/** A reference or a template variable stands in for a secret; it is not one. */
function isStandIn(value: string): boolean {
  return value.startsWith('keychain:') || value.includes('${');
}

/**
 * Free text (a task, instructions, a server's env value or argument) holding a secret: a known key
 * format anywhere, a long bearer-like token, or a long value given to a secret-sounding name.
 */
export function containsRawSecret(text: string): boolean {
  if (looksLikeRawSecret(text)) return true;
  for (const m of text.matchAll(URL_PASSWORD)) if (!isStandIn(m[1] ?? '')) return true;
  for (const m of text.matchAll(AUTH_SCHEME)) {
    const token = m[1] ?? '';
    if (token.length >= 12 && !isStandIn(token) && (/\d/.test(token) || token.endsWith('='))) return true;
  }
  for (const m of text.matchAll(SECRET_ASSIGNMENT)) {
    const value = m[1] ?? '';
    if (value.length >= 12 && !isStandIn(value)) return true;
  }
  return false;
}

/** For text models and traces see (task, instructions): where the secret goes instead. */
export const TEXT_SECRET_MESSAGE = `holds what looks like a key or bearer token, which every model and trace would see: ${KEYCHAIN_HINT} and hand it to the server that needs it as an env value keychain:NAME`;
