import type { RunEventOf } from '../contracts/events';
import type { LearningContextRef, LearningKind } from '../contracts/learning-export';
import type { ChatMessage } from '../contracts/model';
import { roundNumber } from '../contracts/round-number';

/**
 * A learning example's prompt is the system prompt, the task and the canonical history so far: the
 * previous example's prompt plus the turns since. Copying it whole into every `learning.example`
 * made a trace grow with the square of its length, so the engine stores only what is new
 * (`context_ref` names the span it repeats) and readers rebuild the same messages.
 */

type LearningEvent = RunEventOf<'learning.example'>;

/** An example whose prompt later examples may repeat. */
export interface PromptSource {
  round: number;
  kind: LearningKind;
  context: readonly ChatMessage[];
}

export type EncodedContext = Pick<LearningEvent, 'context' | 'context_ref' | 'context_head'>;

/** What rebuilding a prompt needs of an example: which agent run, round and kind it is, and its prompt as stored (an event, or the page's row). */
export type EncodedPrompt = Pick<LearningEvent, 'run_id' | 'invocation_id' | 'round' | 'kind'> & EncodedContext;

// A changed system prompt (an SCS phase brief, a new tool list) or task still reuses the history after it.
const MAX_HEAD = 2;

const same = (a: ChatMessage | undefined, b: ChatMessage | undefined) => a !== undefined && b !== undefined && a.role === b.role && a.content === b.content;

/** The prompt as stored: whole when nothing is shared with `previous`, otherwise a reference and what is new. */
export function encodeContext(previous: PromptSource | undefined, context: readonly ChatMessage[]): EncodedContext {
  if (!previous) return { context: [...context] };
  const base = previous.context;
  for (let start = 0; start <= MAX_HEAD && start < context.length; start += 1) {
    let end = start;
    while (end < base.length && same(base[end], context[end])) end += 1;
    if (end > start) {
      const ref: LearningContextRef = { round: previous.round, kind: previous.kind, start, end };
      return { context: context.slice(end), context_ref: ref, ...(start > 0 ? { context_head: context.slice(0, start) } : {}) };
    }
  }
  return { context: [...context] };
}

/** What identifies an example's prompt within a trace: its agent run (run, workflow node invocation), round and kind. */
function keyOf(runId: string, invocationId: string | undefined, round: number, kind: LearningKind): string {
  return JSON.stringify([runId, invocationId ?? '', round, kind]);
}

export function promptKey(event: Pick<LearningEvent, 'run_id' | 'invocation_id' | 'round' | 'kind'>): string {
  return keyOf(event.run_id, event.invocation_id, event.round, event.kind);
}

/** The key of the example an event's prompt refers to (undefined for a prompt stored whole). */
export function referencedKey(event: EncodedPrompt): string | undefined {
  return event.context_ref ? keyOf(event.run_id, event.invocation_id, event.context_ref.round, event.context_ref.kind) : undefined;
}

export type ResolvedContext = { ok: true; context: ChatMessage[] } | { ok: false; message: string };

/**
 * Rebuilds whole prompts from events read in order (a trace, a batch of stored events). Prompts are
 * kept by reference (messages are shared, not copied), so memory grows with the rounds too.
 */
export class PromptBook {
  private readonly prompts = new Map<string, ChatMessage[]>();

  /** `limit`: how many prompts a long-lived book keeps (the oldest go first; an example refers to a recent one). */
  constructor(private readonly limit = Infinity) {}

  /** Makes a prompt known (e.g. one already rebuilt and stored elsewhere). */
  add(key: string, context: ChatMessage[]): void {
    this.prompts.delete(key);
    this.prompts.set(key, context);
    for (const oldest of this.prompts.keys()) {
      if (this.prompts.size <= this.limit) break;
      this.prompts.delete(oldest);
    }
  }

  has(key: string): boolean {
    return this.prompts.has(key);
  }

  /** The event's whole prompt, remembered for the examples after it; or why it cannot be rebuilt. */
  resolve(event: EncodedPrompt): ResolvedContext {
    const resolved = rebuild(event, (key) => this.prompts.get(key));
    if (resolved.ok) this.add(promptKey(event), resolved.context);
    return resolved;
  }
}

function rebuild(event: EncodedPrompt, lookup: (key: string) => ChatMessage[] | undefined): ResolvedContext {
  const ref = event.context_ref;
  const key = referencedKey(event);
  if (!ref || key === undefined) return { ok: true, context: event.context };
  const base = lookup(key);
  const where = `round ${roundNumber(ref.round)}'s ${ref.kind} example`;
  if (!base) return { ok: false, message: `its prompt repeats ${where}, which is not here (read the run's whole trace)` };
  if (ref.end > base.length) return { ok: false, message: `its prompt repeats messages ${ref.start}–${ref.end} of ${where}, which has ${base.length}` };
  return { ok: true, context: [...(event.context_head ?? []), ...base.slice(ref.start, ref.end), ...event.context] };
}
