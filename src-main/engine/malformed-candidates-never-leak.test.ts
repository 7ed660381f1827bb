import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { ModelScript, type ModelScriptInput } from '@shared/contracts/script';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import type { ModelProvider, ModelRequest } from '../providers/provider';
import { resolveProvider } from '../providers/resolve-provider';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { maskingProbeSpec } from '../../test-support/masking-probe';
import { runAgent } from './run-agent';

/**
 * `write_file`'s `content` is declared sensitive. The student sends it in candidates the parser
 * cannot read as a decision; the value must still appear nowhere the run shows or stores: the trace
 * (events as JSON lines), the result `--json` prints, or any prompt (the teacher's above all).
 */
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const planted = (tag: string) => `${tag}-${randomBytes(12).toString('hex')}`;
const replaceWith = (decision: Record<string, unknown>) => ({ json: { verdict: 'replace', reason_codes: ['invalid_arguments'], explanation: 'Unreadable.', replacement: decision } });

/** An unusable candidate is sent twice: the proposal, and the student's one repair attempt. */
const twice = (entries: NonNullable<ModelScriptInput['student']>) => entries.flatMap((entry) => [entry, entry]);

async function runWith(student: ModelScriptInput['student'], rounds: number) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = maskingProbeSpec();
  const teacher = [...Array.from({ length: rounds - 1 }, () => replaceWith({ decision_type: 'present_result', content: 'noted' })), replaceWith({ decision_type: 'complete', output: 'done' })];
  const script = ModelScript.parse({ latency_ms: 0, student, teacher });
  // The double at the model boundary: records every prompt, answers from the replay script.
  const sent: ModelRequest[] = [];
  const recording = (role: 'student' | 'teacher'): ModelProvider => {
    const inner = resolveProvider({ provider: 'script' }, role, { script });
    return { label: inner.label, complete: (request) => (sent.push(request), inner.complete(request)) };
  };
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec,
    specDir: ws.dir,
    workspace: ws.workspace,
    ledger: createMemoryLedger(),
    onEvent: (e) => events.push(e),
    providers: { student: recording('student'), teacher: recording('teacher') },
  });
  const trace = events.map((e) => JSON.stringify(e)).join('\n');
  const teacherPrompts = JSON.stringify(sent.filter((r) => r.messages[0]?.content.startsWith('You are the teacher')).map((r) => r.messages));
  return { result, trace, teacherPrompts, prompts: JSON.stringify(sent.map((r) => r.messages)), ws };
}

describe('a sensitive argument in a malformed candidate (real filesystem MCP server, replay student)', () => {
  it('never reaches the trace, the --json result or the teacher prompt: prose around JSON, arguments as a JSON string, a parse-error preview', async () => {
    const prose = planted('prose');
    const asString = planted('string');
    const preview = planted('preview');
    const { result, trace, teacherPrompts, prompts, ws } = await runWith(
      twice([
        // (a) prose around an otherwise valid decision
        { text: `Sure! Here is my decision: {"decision_type":"tool_call","tool_name":"write_file","arguments":{"path":"a.md","content":"${prose}"}} Hope that helps.` },
        // (b) a native tool call whose arguments are a JSON string, not an object
        { tool_calls: [{ name: 'write_file', arguments: JSON.stringify({ path: 'b.md', content: asString }) }] },
        // (c) cut-off JSON: the parse error's preview shows the start of it
        { text: `{"tool_name":"write_file","arguments":{"content":"${preview}","path":"c.md"` },
      ]),
      3,
    );
    expect(result.status, result.message).toBe('completed');
    // The teacher saw the candidates (masked), so the prompts are the ones that mattered.
    expect(teacherPrompts).toContain('could not be read as a decision');
    for (const value of [prose, asString, preview]) {
      expect(trace, 'trace').not.toContain(value);
      expect(JSON.stringify(result), '--json result').not.toContain(value);
      expect(teacherPrompts, 'teacher prompt').not.toContain(value);
      expect(prompts, 'any prompt').not.toContain(value);
    }
    expect(teacherPrompts).toContain('••••••');
    expect(ws.workspace).toBe(join(ws.dir, 'notes-sandbox'));
  });

  it('a value seen once in a well-formed call is masked later even in plain prose', async () => {
    const secret = planted('known');
    const { result, trace, teacherPrompts } = await runWith(
      [
        { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'x.md', content: secret } } },
        ...twice([{ text: `I will now write ${secret} to x.md, ok?` }]),
      ],
      2,
    );
    expect(result.status, result.message).toBe('completed');
    expect(teacherPrompts).toContain('I will now write');
    expect(trace).not.toContain(secret);
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(teacherPrompts).not.toContain(secret);
  });
});
