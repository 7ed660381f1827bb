import { describe, expect, it } from 'vitest';
import type { OfferedTool } from '@shared/contracts/tool-snapshot';
import { decisionJsonSchema } from './prompts';
import type { ChatMessage, ModelRequest } from './provider';
import { requestBytes } from './record-calls';

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
});
