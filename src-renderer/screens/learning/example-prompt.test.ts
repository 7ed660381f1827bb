import { describe, expect, it } from 'vitest';
import type { RunEventOf } from '@shared/contracts/events';
import type { ChatMessage } from '@shared/contracts/model';
import type { HostedExample, HostParams } from '@shared/contracts/host-api';
import { encodeContext } from '@shared/learning/learning-context';
import { eventLog, startRun } from '../../testing/event-fixtures';
import { HostRequestError } from '../../host/host-client';
import { examplePrompt } from './example-prompt';
import { exampleRow } from './example-row';

/** Two review examples of one run, the second's prompt recorded as a reference to the first's (as the engine writes it). */
function twoRounds(runId: string) {
  const log = eventLog(runId);
  startRun(log);
  const first: ChatMessage[] = [
    { role: 'system', content: 'You keep notes.' },
    { role: 'user', content: 'Task: tidy the notes' },
  ];
  const second: ChatMessage[] = [...first, { role: 'assistant', content: '{"decision_type":"tool_call"}' }, { role: 'tool', content: 'notes 0' }];
  const example = (round: number, context: ChatMessage[], previous?: { round: number; kind: 'review'; context: ChatMessage[] }) =>
    log.add({
      type: 'learning.example',
      kind: 'review',
      round,
      ...encodeContext(previous, context),
      rule: 'sampled',
      student_candidate: { decision_type: 'complete', output: 'done' },
      verdict: { verdict: 'accept', reason_codes: [], explanation: 'fine' },
      reason_codes: [],
      agreement: true,
      models: { student: 'replay', teacher: 'replay' },
    });
  const a = example(0, first) as RunEventOf<'learning.example'>;
  const b = example(1, second, { round: 0, kind: 'review', context: first }) as RunEventOf<'learning.example'>;
  return { a, b, first, second };
}

describe('an opened learning example’s prompt', () => {
  it('recorded whole, is shown as recorded, nothing asked; recorded by reference, is the host’s rebuilt prompt', async () => {
    const { a, b, first, second } = twoRounds('run-prompt-0001');
    const asked: HostParams<'learning.example'>[] = [];
    const ask = async (params: HostParams<'learning.example'>) => {
      asked.push(params);
      return { example: { event: b, spec_id: 'notes-cleanup', context: second } satisfies HostedExample };
    };
    const rowA = exampleRow({ event: a })!;
    const rowB = exampleRow({ event: b })!;
    expect(rowB.context).toEqual(second.slice(2));
    expect(await examplePrompt(ask, rowA)).toEqual({ ok: true, context: first });
    expect(asked).toEqual([]);
    expect(await examplePrompt(ask, rowB)).toEqual({ ok: true, context: second });
    expect(asked).toEqual([{ id: b.id }]);
  });

  it('says why when it cannot be rebuilt, or when the host cannot be asked', async () => {
    const { b } = twoRounds('run-prompt-0002');
    const row = exampleRow({ event: b })!;
    const unbuilt = await examplePrompt(async () => ({ example: { event: b, prompt_problem: 'the review example of round 1 it repeats is not in the history' } }), row);
    expect(unbuilt).toEqual({ ok: false, message: 'The prompt cannot be rebuilt: the review example of round 1 it repeats is not in the history.' });
    const gone = await examplePrompt(async () => {
      throw new HostRequestError('learning.example', 'not_found', 'no learning example here');
    }, row);
    expect(gone).toMatchObject({ ok: false });
    expect(gone.ok ? '' : gone.message).toMatch(/^The prompt could not be read from the host’s history: /);
  });
});
