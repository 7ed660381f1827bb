import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StderrTail } from './stderr-tail';
import { toolResultText } from './tool-result';

describe('toolResultText', () => {
  it('joins text blocks and summarises every binary block by type, mime type and size', () => {
    const fourBytes = Buffer.from([1, 2, 3, 4]).toString('base64');
    const out = toolResultText({
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', data: fourBytes, mimeType: 'image/png' },
        { type: 'audio', data: fourBytes, mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a', mimeType: 'text/plain' },
        { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: fourBytes } },
        { type: 'resource', resource: { uri: 'file:///c.txt', text: 'inline text' } },
      ],
    });
    expect(out).toEqual({
      is_error: false,
      content: [
        'first',
        '[image image/png 4 bytes]',
        '[audio audio/wav 4 bytes]',
        '[resource link file:///a.txt text/plain]',
        '[resource file:///b.bin application/octet-stream 4 bytes]',
        '[resource file:///c.txt]\ninline text',
      ].join('\n'),
    });
  });

  it('carries the MCP isError flag and falls back to structured content', () => {
    expect(toolResultText({ content: [{ type: 'text', text: 'nope' }], isError: true })).toEqual({ content: 'nope', is_error: true });
    expect(toolResultText({ content: [], structuredContent: { sum: 3 } })).toEqual({ content: '{"sum":3}', is_error: false });
    expect(toolResultText({ content: [] })).toEqual({ content: '', is_error: false });
  });
});

describe('StderrTail', () => {
  it('keeps the last lines, joins lines split across chunks and multi-byte characters split across buffers', async () => {
    const lines: string[] = [];
    const tail = new StderrTail(3, (l) => lines.push(l));
    const stream = new PassThrough();
    tail.attach(stream);
    const euro = Buffer.from('€');
    stream.write('one\ntw');
    stream.write('o\nthree\n\nfour ');
    stream.write(euro.subarray(0, 1));
    stream.write(Buffer.concat([euro.subarray(1), Buffer.from('\nfive (no newline)')]));
    stream.end();
    await tail.settled(1_000);
    expect(tail.all()).toEqual(['three', 'four €', 'five (no newline)']);
    expect(tail.lastLine()).toBe('five (no newline)');
    expect(lines).toEqual(['one', 'two', 'three', 'four €', 'five (no newline)']);
  });
});
