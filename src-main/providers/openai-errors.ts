import { looksLikeRawSecret } from '@shared/policy/secrets';

/**
 * What an OpenAI-compatible server said when it failed, as one short line. Servers disagree on
 * the shape: OpenAI `{error:{message}}`, others `{error:"…"}`, `{message}` or `{detail}`; a
 * non-JSON body (a proxy's HTML page) gives its first words.
 */
export function openAIErrorMessage(body: string): string {
  let said: unknown;
  try {
    const parsed = JSON.parse(body) as unknown;
    said = pickMessage(parsed);
  } catch {
    said = body.replace(/<[^>]*>/g, ' ');
  }
  return typeof said === 'string' ? clip(said.replace(/\s+/g, ' ').trim(), 300) : '';
}

function pickMessage(parsed: unknown): unknown {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { error, message, detail } = parsed as { error?: unknown; message?: unknown; detail?: unknown };
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  if (typeof message === 'string') return message;
  if (typeof detail === 'string') return detail;
  return undefined;
}

/** Replaces every occurrence of the key in text. */
export function removeKey(text: string, apiKey: string | undefined): string {
  return apiKey !== undefined && apiKey !== '' ? text.split(apiKey).join('[redacted]') : text;
}

/**
 * For text a server wrote, on its way into a message: removes the key, and any word that looks
 * like a key, since some servers quote the key they were sent (whole, or as `sk-…abcd`).
 */
export function redactSecrets(text: string, apiKey: string | undefined): string {
  return removeKey(text, apiKey)
    .split(/(\s+)/)
    .map((word) => (/\s/.test(word) || !looksLikeRawSecret(word) ? word : '[redacted]'))
    .join('');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
