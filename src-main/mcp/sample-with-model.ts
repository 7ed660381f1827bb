import { OUTPUT_TOKEN_BOUNDS } from '@shared/contracts/output-bound';
import type { ModelProvider } from '../providers/provider';
import type { SamplingAsk, SamplingReply } from './client-capabilities';

/**
 * A server's sampling request answered by one of the run's models: the same provider as the run's
 * own calls (checked against the privacy policy when the run started, and recorded in its privacy
 * log as a model call: caller student, purpose other, data "prompt"). Only servers the workflow lets
 * sample (`sampling: true`) get here.
 */
export function sampleWith(provider: ModelProvider, signal?: AbortSignal): (ask: SamplingAsk) => Promise<SamplingReply> {
  return async (ask) => {
    // The server's own maxTokens is what it asked for; never more than a proposal's bound (issue 27: never unset).
    const max_output_tokens = Math.max(1, Math.min(ask.max_tokens, OUTPUT_TOKEN_BOUNDS.student));
    const reply = await provider.complete({ role: 'student', messages: ask.messages, signal, max_output_tokens, call: { caller: 'student', purpose: 'other', data: ['prompt'] } });
    return { text: reply.text, model: reply.model };
  };
}
