import { describe, expect, it } from 'vitest';
import { OUTPUT_TOKEN_BOUNDS } from '@shared/contracts/output-bound';
import type { ModelProvider, ModelRequest } from '../providers/provider';
import { sampleWith } from './sample-with-model';

/** The model boundary's test double: it records each request and answers at once. */
function recordingProvider(): { provider: ModelProvider; asked: ModelRequest[] } {
  const asked: ModelRequest[] = [];
  return { asked, provider: { label: 'recording double', complete: async (request) => (asked.push(request), { text: 'ok', tool_calls: [], model: 'double' }) } };
}

describe('a server’s sampling request answered by the run’s model (issue 27: an output bound is never unset)', () => {
  it('carries the server’s maxTokens, never more than a proposal’s bound', async () => {
    const { provider, asked } = recordingProvider();
    const sample = sampleWith(provider);
    await sample({ server: 's', messages: [{ role: 'user', content: 'hi' }], max_tokens: 300 });
    await sample({ server: 's', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10_000_000 });
    await sample({ server: 's', messages: [{ role: 'user', content: 'hi' }], max_tokens: 0 });
    expect(asked.map((r) => r.max_output_tokens)).toEqual([300, OUTPUT_TOKEN_BOUNDS.student, 1]);
  });
});
