import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliWith } from '../../test-support/cli-capture';
import { readTraceFile } from '../../test-support/trace-file';
import { EXIT } from '../shells/cli/cli';
import { startModernLoopbackServer, type ModernLoopbackServer } from './modern-loopback-server';

/**
 * Issue 30 through the CLI, as a person runs Steward: a workflow file's tool node calls a real MCP
 * 2026-07-28 server that asks for input mid-call (`input_required`). At a terminal the person is
 * asked exactly as for a 2025 server's elicitation and the call completes with their answer; with
 * no terminal the form's defaults answer it (SEP-1034), and the trace says so.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function setUp(): Promise<{ server: ModernLoopbackServer; file: string; dir: string }> {
  const server = await startModernLoopbackServer();
  const dir = mkdtempSync(join(tmpdir(), 'steward-modern-cli-'));
  cleanups.push(() => server.close(), () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'book.workflow.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'book',
      name: 'Book a room',
      servers: [{ id: 'hotel', url: server.url }],
      nodes: [
        { id: 'book', kind: 'tool', server: 'hotel', tool: 'book_room', arguments: { room: 'blue' }, inputs: [] },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'any' }] },
      ],
      edges: [{ from: { node: 'book', port: 'result' }, to: { node: 'out', port: 'said' } }],
    }),
  );
  return { server, file, dir };
}

describe('steward run: a 2026-07-28 server asks for input in the middle of a tool call', () => {
  it('the person answers at the terminal; the retried call brings the answer and the server completes with it', async () => {
    const { server, file, dir } = await setUp();
    const trace = join(dir, 'run.jsonl');
    const questions: string[] = [];
    const typed = ['Ada', '3'];
    const run = await cliWith(['run', file, '--yes', '--data-dir', join(dir, 'data'), '--trace', trace], {
      line: async (question: string) => {
        questions.push(question);
        return typed.shift();
      },
    });
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(run.stderr).toContain('MCP server "hotel" asks you: Who is room blue for?');
    expect(questions).toHaveLength(2);
    const events = readTraceFile(trace);
    expect(events.find((e) => e.type === 'mcp.elicitation')).toMatchObject({ server: 'hotel', mode: 'form', fields: ['who', 'nights'], action: 'accept' });
    const executed = events.find((e) => e.type === 'tool.executed');
    expect(executed?.type === 'tool.executed' && executed.execution.content).toBe('booked blue for Ada (3 nights)');
    // Both requests are one call: the retry carries the same trace context (issue 30, traceparent-meta.test.ts).
    const traceparent = server.calls[0]?.traceparent;
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(server.calls).toEqual([{ tool: 'book_room', traceparent }, { tool: 'book_room', requestState: 'booking-blue-1', answered: 'accept', traceparent }]);
    // What the person typed is the server's to know, not the trace's.
    expect(JSON.stringify(events.filter((e) => e.type === 'mcp.elicitation'))).not.toContain('Ada');
  }, 60_000);

  it('with no terminal the form is answered with its defaults, and the trace says the defaults answered', async () => {
    const { server, file, dir } = await setUp();
    const trace = join(dir, 'run.jsonl');
    const run = await cliWith(['run', file, '--yes', '--data-dir', join(dir, 'data'), '--trace', trace]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const events = readTraceFile(trace);
    expect(events.find((e) => e.type === 'mcp.elicitation')).toMatchObject({ server: 'hotel', action: 'accept', answered_by: 'defaults' });
    const executed = events.find((e) => e.type === 'tool.executed');
    expect(executed?.type === 'tool.executed' && executed.execution.content).toBe('booked blue for a guest (1 night)');
    expect(server.calls.map((c) => c.answered)).toEqual([undefined, 'accept']);
  }, 60_000);
});
