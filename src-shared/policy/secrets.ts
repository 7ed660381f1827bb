/**
 * Raw secrets must never be typed into or serialised from a spec or profile (seed 000): config
 * schemas reject values that look like keys and ask for a `keychain:NAME` reference instead.
 * Recognises the common key formats and long random-looking tokens; ordinary text, paths and
 * URLs pass.
 */
const KNOWN_KEY_PATTERNS: readonly RegExp[] = [
  /\bsk-(?:proj-|ant-|or-)?[A-Za-z0-9_-]{16,}/, // OpenAI, Anthropic, OpenRouter style
  /\bgh[pousr]_[A-Za-z0-9]{20,}/, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/,
  /\bAKIA[0-9A-Z]{16}\b/, // AWS access key id
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/, // Slack
  /\bAIza[0-9A-Za-z_-]{30,}/, // Google API key
  /\bglpat-[A-Za-z0-9_-]{20,}/, // GitLab
  /\bhf_[A-Za-z0-9]{30,}/, // Hugging Face
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, // JWT
];

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

/** Where a secret goes instead; the config then holds a `keychain:NAME` reference. */
export const KEYCHAIN_HINT = 'store it in the OS keychain (steward credentials set NAME, or Settings → Credentials)';

export const RAW_SECRET_MESSAGE = `looks like a raw secret: ${KEYCHAIN_HINT} and write keychain:NAME here`;

/** An auth scheme and its token: `Bearer eyJ…`, `Basic dXNlcjpw…`. */
const AUTH_SCHEME = /\b(?:Bearer|Basic)\s+([A-Za-z0-9._~+/-]+=*)/gi;
/** A value given to a name that says secret: `api_key=…`, `"client_secret": "…"`, `X-Api-Key: …`. */
const SECRET_ASSIGNMENT =
  /\b(?:x-api-key|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|token|client[_-]?secret|secret|password|passwd|pwd)\b["']?\s*[:=]\s*["']?([^\s"',;]+)/gi;

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
