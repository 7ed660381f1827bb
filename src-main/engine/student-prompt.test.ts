import { describe, expect, it } from 'vitest';
import type { OfferedTool, ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { SecretRegistry } from '../credentials/secret-registry';
import { buildStudentPrompt, maskMessage } from '../providers/prompts';
import { CanonicalHistory } from './canonical-history';
import { StudentPromptCache, type StudentPromptParts } from './student-prompt';

/**
 * Issue 26: a round's prompt costs what changed, not the run's length — and is exactly the prompt
 * built whole and masked, round after round, as results settle, the mask grows and the tools change.
 */

const readTool: OfferedTool = {
  name: 'read_text_file',
  server: 'fs',
  description: 'Read a text file from the workspace.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  schema_hash: 'hash-read-0001',
  effect: { effect: 'read', requires_user_confirmation: false, idempotency_supported: true, sensitive_arguments: [] },
  effect_source: 'shipped',
};
const snapshot = (hash: string, tools: OfferedTool[] = [readTool]): ToolSnapshot => ({ round: 0, tools, hash });

describe('the student prompt built from what changed', () => {
  it('equals the prompt built whole and masked, every round of a run', () => {
    const secrets = new SecretRegistry();
    const mask = { text: (text: string) => secrets.maskText(text), version: () => secrets.version };
    const cache = new StudentPromptCache(mask);
    const history = new CanonicalHistory();
    let tools = snapshot('tools-1');
    let instructions = 'Read the notes.';
    for (let round = 0; round < 30; round += 1) {
      if (round === 10) secrets.register('NOTES_TOKEN', 'tok-secret-123');
      if (round === 15) tools = snapshot('tools-2', [readTool, { ...readTool, name: 'list_directory', schema_hash: 'hash-list-0001' }]);
      if (round === 20) instructions = 'Read the notes, then stop.';
      // An entry long settled changes (its turns are built again, and everything after them is assembled again).
      if (round === 25) history.settle(3, 'a result that changed later', false);
      const parts: StudentPromptParts = { instructions, task: 'Summarise the notes', snapshot: tools, history: history.view(), mode: 'structured', ...(round % 7 === 3 ? { feedback: 'arguments_invalid: path' } : {}) };
      const built = cache.build(parts);
      const whole = buildStudentPrompt({ ...parts, history: history.entries() });
      expect(built.messages).toEqual(whole.messages.map(maskMessage(mask.text)));
      expect(built.data).toEqual(whole.data);
      // The round's decision, and (a round later) its result, which once carries the secret.
      const index = history.commit(round, { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: `notes-${round}.md` } });
      history.settle(index, round === 12 ? 'the token is tok-secret-123' : `contents of notes-${round}.md`, round % 5 === 4);
    }
  });

  it('masks and builds a constant amount per round, whatever the history\'s length: unchanged turns are the same objects', () => {
    let masked = 0;
    const cache = new StudentPromptCache({ text: (text) => ((masked += 1), text), version: () => 0 });
    const history = new CanonicalHistory();
    const perRound: number[] = [];
    let previous: readonly object[] = [];
    for (let round = 0; round < 200; round += 1) {
      masked = 0;
      const built = cache.build({ instructions: 'Read.', task: 'Read.', snapshot: snapshot('tools'), history: history.view(), mode: 'structured' });
      perRound.push(masked);
      // Every turn that was there last round is the very same (frozen) message.
      expect(previous.every((message, i) => built.messages[i] === message)).toBe(true);
      expect(built.messages.every((message) => Object.isFrozen(message))).toBe(true);
      previous = built.messages.slice(0, 2 + 2 * history.length);
      history.settle(history.commit(round, { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: `n-${round}.md` } }), 'text', false);
    }
    // Round 0 builds the system and task messages; every later round only the previous round's two turns.
    expect(perRound[0]).toBe(2);
    expect(new Set(perRound.slice(1))).toEqual(new Set([2]));
  });
});
