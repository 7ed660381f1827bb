/**
 * TEST DOUBLE behaviour shared by the fake model servers (issue 27): a priced model that pads its
 * answer with whitespace after the JSON, as a real one can, until something stops it — the
 * request's output bound (OpenAI's `max_completion_tokens`/`max_tokens`, Ollama's `num_predict`),
 * or its own end after `unbounded_tokens` when the request set no bound. It bills by tokens: the
 * answer's words plus one a pad space, and the prompt at 4 characters a token.
 */

export interface Padding {
  /** Where the model stops by itself when the request sets no bound (50,000 in the report). */
  unbounded_tokens: number;
}

export interface Padded {
  content: string;
  output_tokens: number;
  /** The bound stopped it (finish_reason / done_reason "length"). */
  cut: boolean;
}

/**
 * The answer as a fake sends it under `bound`, with its output tokens: a longer answer is cut there
 * (every fake honours the bound); the padding model pads a shorter one up to it.
 */
export function padAnswer(content: string, bound: number | undefined, padding?: Padding): Padded {
  const words = content.split(/\s+/).filter((w) => w !== '');
  if (bound !== undefined && words.length > bound) {
    // Cut inside the answer itself: its first `bound` words, whatever JSON that leaves broken.
    return { content: words.slice(0, bound).join(' '), output_tokens: bound, cut: true };
  }
  const own = words.length;
  if (!padding) return { content, output_tokens: own, cut: false };
  const limit = bound ?? padding.unbounded_tokens;
  return { content: content + ' '.repeat(Math.max(0, limit - own)), output_tokens: Math.max(limit, own), cut: bound !== undefined };
}

/** The prompt's tokens as the padding model bills them: its messages' text and any schema, 4 characters a token. */
export function promptTokens(messages: readonly { content?: unknown }[], schema?: unknown): number {
  const text = messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''))).join('');
  return Math.ceil((text.length + (schema === undefined ? 0 : JSON.stringify(schema).length)) / 4);
}

/** A bound as a request carried it: a positive integer, else none. */
export function boundOf(...values: unknown[]): number | undefined {
  return values.find((v): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0);
}
