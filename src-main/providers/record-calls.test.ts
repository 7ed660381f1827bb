import { describe, expect, it } from 'vitest';
import type { OfferedTool } from '@shared/contracts/tool-snapshot';
import { decisionJsonSchema } from './prompts';
import type { ChatMessage, ModelRequest } from './provider';
import { requestBytes, requestSizer } from './record-calls';

/** The privacy log's byte count (issue 26): summed from parts, measured once per frozen part, always what the whole request serialises to. */

const whole = (request: ModelRequest) => Buffer.byteLength(JSON.stringify({ messages: request.messages, tools: request.tools, format: request.format }), 'utf8');

const tool = { name: 'read_text_file', server: 'fs', description: 'Reads — a “file”', input_schema: { type: 'object', properties: { path: { type: 'string' } } } } as unknown as OfferedTool;

describe('requestBytes', () => {
  it('is the byte length of the request serialised whole, with and without tools and format, frozen or not', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Ünïcode, emoji 🚀, quotes " and \\ backslashes, a lone \ud800 surrogate' },
      { role: 'user', content: 'Task: read' },
      Object.freeze({ role: 'assistant', content: '{"decision_type":"complete","output":"日本語"}' }),
    ];
    const requests: ModelRequest[] = [
      { role: 'student', messages },
      { role: 'student', messages, format: decisionJsonSchema() },
      { role: 'student', messages, tools: [tool] },
      { role: 'teacher', messages: Object.freeze([...messages]) as ChatMessage[], tools: Object.freeze([tool]) as OfferedTool[], format: decisionJsonSchema() },
      { role: 'student', messages: [] },
    ];
    for (const request of requests) {
      expect(requestBytes(request)).toBe(whole(request));
      // Measured again from what it remembered: the same.
      expect(requestBytes(request)).toBe(whole(request));
    }
  });

  it('measures a message that is not frozen every time: changed in place, it is counted as it is now', () => {
    const message: ChatMessage = { role: 'user', content: 'short' };
    const request: ModelRequest = { role: 'student', messages: [message] };
    expect(requestBytes(request)).toBe(whole(request));
    message.content = 'a much longer content than before';
    expect(requestBytes(request)).toBe(whole(request));
  });

  it('sizes a run\'s growing prompts from the messages it counted before, always what the whole request serialises to', () => {
    const sized = requestSizer();
    const frozen = (content: string): ChatMessage => Object.freeze({ role: 'user', content });
    const system = frozen('system ✓');
    const turns: ChatMessage[] = [];
    const check = (messages: ChatMessage[]) => {
      const request: ModelRequest = { role: 'student', messages, format: decisionJsonSchema() };
      expect(sized(request)).toBe(whole(request));
    };
    for (let round = 0; round < 5; round += 1) {
      turns.push(frozen(`call ${round} «é»`), frozen('x'.repeat(round * 7)));
      check([system, ...turns]);
      // A round with feedback (a message not frozen) at the end, then without it again.
      check([system, ...turns, { role: 'user', content: `feedback ${round}` }]);
    }
    // A message in the middle replaced (a new mask): counted from there on, not from memory.
    turns[3] = frozen('a different, longer message than the one it replaced');
    check([system, ...turns]);
    // A message not frozen in the middle: changed in place, it is counted as it is now.
    const loose: ChatMessage = { role: 'user', content: 'loose' };
    check([system, loose, ...turns]);
    loose.content = 'loose, and longer now';
    check([system, loose, ...turns]);
    // Shorter and empty prompts.
    check([system]);
    check([]);
    check([system, ...turns]);
  });
});
