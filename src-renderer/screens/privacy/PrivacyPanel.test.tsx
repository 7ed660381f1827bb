import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ModelCalled } from '@shared/contracts/model-call';
import { eventLog, startRun, type EventLog } from '../../testing/event-fixtures';
import { PrivacyPanel } from './PrivacyPanel';
import { privacyLog } from './privacy-log';

const local: Pick<ModelCalled, 'model' | 'provider' | 'local'> = { model: '127.0.0.1:11434:qwen3:4b', provider: 'ollama', local: true };
const cloud: Pick<ModelCalled, 'model' | 'provider' | 'local' | 'host'> = { model: 'api.example.com:big', provider: 'openai_compatible', local: false, host: 'api.example.com' };

function call(log: EventLog, place: Pick<ModelCalled, 'model' | 'provider' | 'local' | 'host'>, extra: Partial<ModelCalled> & { invocation_id?: string } = {}) {
  log.add({ type: 'model.called', caller: 'student', purpose: 'propose', data: ['instructions', 'task', 'offered_tools'], round: 0, bytes: 2048, attempt: 1, ...place, ...extra });
}

const count = (html: string, needle: string) => html.split(needle).length - 1;

describe('the Privacy tab: the run\'s model calls, by where the data went', () => {
  it('groups calls by model and place, the cloud first, with what each group saw in total and its bytes', () => {
    const log = eventLog('privacy-run');
    startRun(log);
    call(log, local);
    call(log, cloud, { caller: 'teacher', purpose: 'review', data: ['task', 'candidate', 'validation'], bytes: 1000 });
    call(log, local, { round: 1, data: ['task', 'history', 'tool_results'], bytes: 3000 });
    call(log, { model: 'replay', provider: 'script', local: true }, { caller: 'committee', purpose: 'plan', round: undefined, phase: 1, bytes: 500, invocation_id: 'summarise[a=0]' });
    const { groups, calls, remote } = privacyLog(log.events);
    expect([calls, remote]).toEqual([4, 1]);
    expect(groups.map((g) => [g.model, g.local, g.host, g.calls.length, g.bytes])).toEqual([
      ['api.example.com:big', false, 'api.example.com', 1, 1000],
      ['127.0.0.1:11434:qwen3:4b', true, undefined, 2, 5048],
      ['replay', true, undefined, 1, 500],
    ]);
    expect(groups[1]?.data).toEqual(['instructions', 'task', 'offered_tools', 'history', 'tool_results']);

    const html = renderToString(<PrivacyPanel events={log.events} />);
    expect(count(html, 'data-testid="privacy-group"')).toBe(3);
    expect(count(html, 'data-testid="privacy-call"')).toBe(4);
    expect(html).toContain('☁ Cloud · api.example.com');
    expect(html).toContain('4 model calls, 1 of them to another machine');
    expect(html).toContain('SCS committee');
    // A workflow's agent node: its invocation, then the phase.
    expect(html).toContain('<td>summarise[a=0] · SCS phase 1</td>');
    // Rounds are numbered from 1, as on the Rounds and Trace tabs (the event's round 1 is the second).
    expect(html).toContain('<td>round 2</td>');
    expect(html).not.toContain('round 0');
    expect(html).toContain('tool results (workspace content)');
  });

  it('a run with 5,000 logged calls puts fewer than 200 rows in the page', () => {
    const log = eventLog('privacy-long');
    startRun(log);
    for (let i = 0; i < 5_000; i++) call(log, i % 10 === 0 ? cloud : local, { round: Math.floor(i / 2) });
    const html = renderToString(<PrivacyPanel events={log.events} />);
    const rows = count(html, 'data-testid="privacy-call"') + count(html, 'data-testid="privacy-group"');
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(200);
  });

  it('a trace from before calls were logged says so and shows what run.started declared', () => {
    const log = eventLog('privacy-old');
    startRun(log);
    log.events[0] = { ...log.events[0]!, ...{ exposure: [{ role: 'student', model: 'replay', local: true, data: ['instructions', 'task'] }] } } as (typeof log.events)[number];
    const html = renderToString(<PrivacyPanel events={log.events} />);
    expect(html).toContain('No model call is logged for this run');
    expect(html).toContain('instructions, task');
  });
});

describe('the Privacy tab: what each remote MCP server was sent', () => {
  it('lists each remote server by host, its tools with argument names and bytes, never a value', () => {
    const log = eventLog('privacy-mcp');
    startRun(log);
    call(log, local);
    log.add({ type: 'mcp.called', server: 'search', tool: 'query', host: 'mcp.example.com', local: false, arguments: { q: '••••••', limit: '••••••' }, bytes: 120 });
    log.add({ type: 'mcp.called', server: 'search', tool: 'query', host: 'mcp.example.com', local: false, arguments: { q: '••••••' }, bytes: 80 });
    log.add({ type: 'mcp.called', server: 'notes', tool: 'read', host: '127.0.0.1:9000', local: true, arguments: {}, bytes: 30 });
    const html = renderToString(<PrivacyPanel events={log.events} />);
    expect(count(html, 'data-testid="privacy-server"')).toBe(2);
    expect(html).toContain('☁ Remote · mcp.example.com');
    expect(html.indexOf('mcp.example.com')).toBeLessThan(html.indexOf('127.0.0.1:9000'));
    expect(html).toContain('arguments limit, q (values not logged)');
    expect(html).toContain('200 B');
  });

  it('a run with no model call still shows what its remote servers were sent', () => {
    const log = eventLog('privacy-mcp-only');
    startRun(log);
    log.add({ type: 'mcp.called', server: 'search', tool: 'query', host: 'mcp.example.com', local: false, arguments: { q: '••••••' }, bytes: 50 });
    const html = renderToString(<PrivacyPanel events={log.events} />);
    expect(html).toContain('data-testid="privacy-empty"');
    expect(html).toContain('data-testid="privacy-servers"');
  });

  it('lists each judgment asked of an A2A agent: its card and host, sizes and field names — and a refusal with nothing sent', () => {
    const log = eventLog('privacy-a2a');
    startRun(log);
    call(log, local);
    const agent = { name: 'Strict reviewer', version: '1.2.0' };
    log.add({ type: 'a2a.called', host: '127.0.0.1:4123', local: true, name: 'Reviewer', agent, judgment_id: 'p:j0.1.0.1', sent: { text_bytes: 812, data_fields: { judgment_id: '••••••', outputs: '••••••' } }, requests: 2, bytes: 2100, outcome: 'answered', invocation_id: 'p' });
    log.add({ type: 'a2a.called', host: 'judge.example.com', local: false, name: 'Reviewer', judgment_id: 'p:j0.2.0.1', requests: 0, bytes: 0, outcome: 'refused', problem: 'the A2A judge “Reviewer” would send this run\'s data to judge.example.com, which the workspace privacy policy does not allow (local only); nothing was sent', invocation_id: 'p' });
    const html = renderToString(<PrivacyPanel events={log.events} />);
    expect(count(html, 'data-testid="privacy-a2a-call"')).toBe(2);
    expect(html).toContain('2 judgments asked of A2A agents, 1 refused by the workspace privacy policy (nothing sent).');
    expect(html).toContain('the A2A agent “Strict reviewer” 1.2.0 at 127.0.0.1:4123 (this machine)');
    expect(html).toContain('2 requests, 2.1 KiB: the judgment text (812 B, masked before it left; not logged) and the fields judgment_id, outputs (values not logged)');
    expect(html).toContain('Refused · judge.example.com');
    expect(html).toContain('refused: nothing was sent');
    expect(html).toContain('which the workspace privacy policy does not allow');
  });
});

