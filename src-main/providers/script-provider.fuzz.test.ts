import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelReply } from '@shared/contracts/model';
import { ModelScript } from '@shared/contracts/script';
import { boundaryInputs, FUZZ_RUNS } from '../../test-support/fuzz-arbitraries';
import { ProviderError } from './provider';
import { createScriptProvider } from './script-provider';

const SCRIPT = {
  latency_ms: 0,
  student: [
    { json: { decision_type: 'tool_call', tool_name: 'read_file', arguments: { path: 'a.md' } } },
    { text: 'not json, on purpose' },
    { tool_calls: [{ name: 'read_file', arguments: { path: 'a.md' } }] },
    { error: 'the model is down' },
  ],
  teacher: [{ json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' }, note: 'n' }],
};

describe('replay scripts under arbitrary input (property)', () => {
  it('a script is parsed or rejected; a parsed one replays every entry as a reply or a ProviderError — never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(boundaryInputs([SCRIPT]), async (input) => {
        const parsed = ModelScript.safeParse(input);
        if (!parsed.success) return;
        // Delays are the script's own business: the replay is checked, not the clock.
        const script = { ...parsed.data, latency_ms: 0, student: parsed.data.student.map((e) => ({ ...e, delay_ms: 0 })) };
        const provider = createScriptProvider(script, 'student');
        for (let i = 0; i <= script.student.length; i += 1) {
          const outcome = await provider.complete({ role: 'student', messages: [] }).then(
            (reply) => ({ reply }),
            (error: unknown) => ({ error }),
          );
          if ('reply' in outcome) expect(ModelReply.safeParse(outcome.reply).success).toBe(true);
          else expect(outcome.error).toBeInstanceOf(ProviderError);
        }
      }),
      FUZZ_RUNS,
    );
  });
});
