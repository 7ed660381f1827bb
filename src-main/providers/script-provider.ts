import { modelLabel, type ModelReply, type ModelRole } from '@shared/contracts/model';
import type { ModelScript, ScriptEntry } from '@shared/contracts/script';
import { abortableDelay } from './abortable-delay';
import { ProviderError, type ModelProvider, type ModelRequest } from './provider';

/**
 * TEST DOUBLE at the model boundary, shown to users as "replay": answers each call for a role with
 * that role's next scripted entry, in order. Demos run on it with no model server; tests use it to
 * make a model say exactly the wrong (or right) thing. It never looks at the prompt.
 */
/** A replay script's queues: the decision boundary's two roles, and SCS's committee and monitor. */
export type ScriptQueue = ModelRole | 'committee' | 'monitor';

export function createScriptProvider(script: ModelScript, role: ScriptQueue, options: { startAt?: number } = {}): ModelProvider {
  const label = modelLabel({ provider: 'script' });
  // A private copy: the caller's script object can change later without changing this replay.
  const entries: readonly ScriptEntry[] = structuredClone(script[role]);
  const latency = script.latency_ms;
  // A resumed run continues where the replay left off (see engine/checkpoint.ts).
  let used = options.startAt ?? 0;

  return {
    label,
    position: () => used,
    async complete(request: ModelRequest): Promise<ModelReply> {
      const cancelled = (): ProviderError => new ProviderError('cancelled', `the ${role} model call was cancelled`);
      // An already-cancelled call consumes nothing, so the script stays aligned with the rounds that ran.
      if (request.signal?.aborted) throw cancelled();
      const entry = entries[used];
      if (!entry) {
        throw new ProviderError('script_exhausted', `the replay script has no more ${role} responses (used ${used})`);
      }
      used += 1;
      // The scripted delay is the replay's model time: deterministic, so two replays' traces match. No tokens.
      const delay = latency + (entry.delay_ms ?? 0);
      await abortableDelay(delay, request.signal, cancelled);
      return { ...replyFor(entry, label), latency_ms: delay };
    },
  };
}

/** One replay provider per role; they share no cursor, so the student's script never feeds the teacher. */
export function createScriptProviders(script: ModelScript): { student: ModelProvider; teacher: ModelProvider } {
  return { student: createScriptProvider(script, 'student'), teacher: createScriptProvider(script, 'teacher') };
}

function replyFor(entry: ScriptEntry, model: string): ModelReply {
  if (entry.error !== undefined) throw new ProviderError('scripted_error', entry.error);
  if (entry.tool_calls !== undefined) return { text: '', tool_calls: structuredClone(entry.tool_calls), model };
  if (entry.text !== undefined) return { text: entry.text, tool_calls: [], model };
  // What is left is `json` (null included); an entry that slipped past the schema with nothing fails closed.
  const text = entry.json === undefined ? undefined : JSON.stringify(entry.json);
  if (text === undefined) throw new ProviderError('bad_response', 'a replay script entry has none of json, text, tool_calls or error');
  return { text, tool_calls: [], model };
}
