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
    const reply = await provider.complete({ role: 'student', messages: ask.messages, signal, call: { caller: 'student', purpose: 'other', data: ['prompt'] } });
    return { text: reply.text, model: reply.model };
  };
}
