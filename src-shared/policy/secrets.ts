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

export const RAW_SECRET_MESSAGE =
  'looks like a raw secret: store it in the OS keychain (steward credentials set NAME, or Settings → Credentials) and write keychain:NAME here';
