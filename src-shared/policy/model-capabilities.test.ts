import { describe, expect, it } from 'vitest';
import { ModelRef } from '../contracts/model';
import { capabilityWarnings } from './model-capabilities';

const ollama = (mode: 'structured' | 'tools') => ModelRef.parse({ provider: 'ollama', model: 'qwen3:4b', mode });

describe('capabilityWarnings', () => {
  it('tools mode on a model that does not report `tools` says to use structured mode or another model', () => {
    expect(capabilityWarnings(ollama('tools'), ['completion'])).toEqual(['qwen3:4b does not report tool calling: use structured mode or another model']);
  });

  it('a chat model with what its mode needs gets no warning, in either mode', () => {
    expect(capabilityWarnings(ollama('tools'), ['completion', 'tools', 'thinking'])).toEqual([]);
    expect(capabilityWarnings(ollama('structured'), ['completion'])).toEqual([]);
  });

  it('an embedding-only model is not a chat model, whatever the mode', () => {
    expect(capabilityWarnings(ollama('structured'), ['embedding'])).toEqual(['qwen3:4b is not a chat model (it reports embedding): pick another model']);
    expect(capabilityWarnings(ollama('tools'), ['embedding'])).toHaveLength(2);
  });

  it('a model reporting nothing may not chat', () => {
    expect(capabilityWarnings(ollama('structured'), [])).toEqual(['qwen3:4b reports no capabilities: it may not be able to chat']);
  });

  it('unknown capabilities (show failed, or a server that does not report them) and the replay models give no warning', () => {
    expect(capabilityWarnings(ollama('tools'))).toEqual([]);
    expect(capabilityWarnings(ModelRef.parse({ provider: 'openai_compatible', base_url: 'http://127.0.0.1:8080/v1', model: 'm', mode: 'tools' }))).toEqual([]);
    expect(capabilityWarnings(ModelRef.parse({ provider: 'script' }), [])).toEqual([]);
  });
});
