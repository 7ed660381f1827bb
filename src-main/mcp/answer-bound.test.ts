import { describe, expect, it } from 'vitest';
import { AnswerTooLarge, boundedAnswer, isAnswerCut } from './answer-bound';

/** A response whose body is these chunks; `pulled` counts what was read of it, `cancelled` says whether its reader gave up. */
function answer(chunks: string[], headers: Record<string, string>) {
  const state = { pulled: 0, cancelled: false };
  const encoder = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk === undefined) return controller.close();
      state.pulled += 1;
      controller.enqueue(encoder.encode(chunk));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { response: new Response(body, { headers }), state };
}

async function read(chunks: string[], headers: Record<string, string>, limit = 100) {
  const { response, state } = answer(chunks, headers);
  const cuts: AnswerTooLarge[] = [];
  const bounded = boundedAnswer(response, limit, (cut) => cuts.push(cut));
  const text = await bounded.response.text().catch((e: unknown) => e);
  await bounded.ended;
  return { text, cuts, state };
}

const SSE = { 'content-type': 'text/event-stream; charset=utf-8' };
const JSON_TYPE = { 'content-type': 'application/json' };

describe('an MCP answer read through the bound', () => {
  it('an event stream is bounded per event: many events under the bound pass whole, whatever their total', async () => {
    const events = Array.from({ length: 50 }, (_, n) => `data: ${'e'.repeat(60)}${n}\n\n`);
    const { text, cuts } = await read(events, SSE);
    expect(text).toBe(events.join(''));
    expect(cuts).toEqual([]);
  });

  it('one event past the bound is cut there: the reader fails with AnswerTooLarge, the source is cancelled, no more is read', async () => {
    const { text, cuts, state } = await read(['data: ok\n\n', 'data: ', 'x'.repeat(60), 'x'.repeat(60), ...Array<string>(10).fill('never read')], SSE);
    expect(text).toBeInstanceOf(AnswerTooLarge);
    expect((text as Error).message).toBe("the server's answer passed 100 bytes; Steward stopped reading it");
    expect(cuts).toHaveLength(1);
    // The source's own queue pulls one chunk ahead of its reader; nothing after that.
    expect(state).toEqual({ pulled: 5, cancelled: true });
  });

  it('events end at an empty line whichever line ending the server uses, a CRLF split across chunks included', async () => {
    for (const end of ['\r\n', '\r', '\n']) {
      const event = `data: ${'e'.repeat(70)}${end}${end}`;
      const { cuts } = await read([event, event.slice(0, -1), `${end.slice(-1)}${event}`, event], SSE);
      expect(cuts, JSON.stringify(end)).toEqual([]);
    }
    // A lone CR then LF is one line ending, not an empty line: the event goes on, and passes the bound.
    const { cuts } = await read([`data: ${'e'.repeat(50)}\r`, `\ndata: ${'e'.repeat(50)}\r\n\r\n`], SSE);
    expect(cuts).toHaveLength(1);
  });

  it('any other body is bounded whole', async () => {
    expect((await read(['{"a":"', 'x'.repeat(80), '"}'], JSON_TYPE)).cuts).toEqual([]);
    const { text, state } = await read(['{"a":"', 'x'.repeat(80), 'x'.repeat(80), '"}'], JSON_TYPE);
    expect(text).toBeInstanceOf(AnswerTooLarge);
    expect(state.cancelled).toBe(true);
  });

  it('a declared Content-Length over the bound is cut before a byte is read', async () => {
    const { text, state, cuts } = await read(['x'.repeat(150)], { ...JSON_TYPE, 'content-length': '150' });
    expect(text).toBeInstanceOf(AnswerTooLarge);
    expect(cuts).toHaveLength(1);
    expect(state).toEqual({ pulled: 0, cancelled: true });
  });

  it("the SDK's report of a stream it lost is told apart from a stream Steward cut", () => {
    expect(isAnswerCut(new AnswerTooLarge(8))).toBe(true);
    expect(isAnswerCut(new Error(`SSE stream disconnected: ${String(new AnswerTooLarge(8))}`))).toBe(true);
    expect(isAnswerCut(new Error('SSE stream disconnected: TypeError: terminated'))).toBe(false);
  });
});
