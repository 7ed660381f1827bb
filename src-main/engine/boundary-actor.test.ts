import { describe, expect, it } from 'vitest';
import { toPromise } from 'xstate';
import { boundaryInput, jsonReply } from '@shared/boundary/testing/fixtures';
import type { ToolExecution } from '@shared/contracts/round';
import { createBoundaryActor } from './boundary-actor';
import type { BoundaryEffects } from './boundary-actors';

/** A host's effects for one round (a scripted proposal, a file read that answers when told): what it was asked, by step. */
function effectsReading(path: string, answered: Promise<void>) {
  const asked: string[] = [];
  const effects: BoundaryEffects = {
    propose: async () => {
      asked.push('propose');
      return jsonReply({ decision_type: 'tool_call', tool_name: 'read_file', arguments: { path } });
    },
    review: async () => {
      throw new Error('no review in this test');
    },
    authorize: async () => {
      asked.push('authorize');
      return { idempotency_key: path.padEnd(64, 'k'), ledger: 'new', confirmation: 'not_needed' };
    },
    commit: async () => {
      asked.push('commit');
      return { history_index: 0 };
    },
    execute: async ({ input }): Promise<ToolExecution> => {
      asked.push(`execute ${String(input.decision.arguments.path)}`);
      await answered;
      return { server: input.tool.server, tool: input.tool.name, arguments: input.decision.arguments, idempotency_key: input.idempotency_key, ok: true, is_error: false, content: `the text of ${path}`, duration_ms: 0 };
    },
    deliver: async () => undefined,
  };
  return { effects, asked };
}

describe('boundary actors on one machine', () => {
  it('two rounds in flight at once (an iterate over a tool node) each run their own host effects, never the other’s', async () => {
    let answer = () => undefined as void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const a = effectsReading('a.txt', answered);
    const b = effectsReading('b.txt', answered);
    const first = createBoundaryActor(a.effects, boundaryInput({ round: 1 }));
    const second = createBoundaryActor(b.effects, boundaryInput({ round: 1 }));
    first.start();
    second.start();
    // Both wait in their tool call before either finishes.
    await expect.poll(() => [a.asked.at(-1), b.asked.at(-1)]).toEqual(['execute a.txt', 'execute b.txt']);
    answer();
    const [one, two] = await Promise.all([toPromise(first), toPromise(second)]);

    expect(one.outcome).toBe('executed');
    expect(one.execution?.content).toBe('the text of a.txt');
    expect(two.execution?.content).toBe('the text of b.txt');
    expect(a.asked).toEqual(['propose', 'authorize', 'commit', 'execute a.txt']);
    expect(b.asked).toEqual(['propose', 'authorize', 'commit', 'execute b.txt']);
  });

  it('a host step that throws ends the round in a typed outcome, as a provided actor did', async () => {
    const { effects } = effectsReading('a.txt', Promise.resolve());
    const failing: BoundaryEffects = { ...effects, execute: async () => Promise.reject(new Error('the server went away')) };
    const record = await toPromise(createBoundaryActor(failing, boundaryInput()).start());
    expect(record.outcome).toBe('failed');
    expect(record.reason).toBe('tool_error');
    expect(record.message).toContain('the server went away');
  });
});
