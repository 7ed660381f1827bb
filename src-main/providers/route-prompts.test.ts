import { describe, expect, it } from 'vitest';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { parseCandidate } from '@shared/boundary/parse-candidate';
import { validateCandidate } from '@shared/boundary/validation';
import { buildStudentMessages, buildTeacherMessages } from './prompts';

// Issue 29: the node's routes are offered in the prompt like its tools (student and teacher alike).

const plain: ToolSnapshot = { round: 0, tools: [], hash: 'snapshot-hash-0001' };
const routed: ToolSnapshot = { ...plain, routes: [{ name: 'billing', description: 'invoices,\n refunds' }, { name: 'support' }] };
const base = { instructions: 'Send requests on.', task: 'Route: my invoice is wrong', history: [] };

describe('routes in the prompts', () => {
  it('the student is offered the routes by name with when to take them, and told a reroute must name one', () => {
    const text = buildStudentMessages({ ...base, snapshot: routed })[0]?.content ?? '';
    expect(text).toContain('## Routes');
    expect(text).toContain('a reroute\'s "target" must be one of these names');
    expect(text).toContain('- billing: invoices, refunds');
    expect(text).toContain('- support');
  });

  it('a node without routes says nothing of routes (prompts as before)', () => {
    expect(buildStudentMessages({ ...base, snapshot: plain })[0]?.content).not.toContain('## Routes');
  });

  it('an empty route list tells the model not to reroute', () => {
    expect(buildStudentMessages({ ...base, snapshot: { ...plain, routes: [] } })[0]?.content).toContain('No routes are offered this round: do not reroute.');
  });

  it('the teacher reviewing a reroute sees the same routes, and the validation failure in words', () => {
    const reply = { text: '{"decision_type":"reroute","target":"sales","reason":"seats"}', tool_calls: [], model: 'replay' };
    const parsed = parseCandidate(reply);
    const validation = validateCandidate(parsed, routed).result;
    const messages = buildTeacherMessages({ ...base, snapshot: routed, review: { reply, parsed, validation, rule: 'validation_failed', attempt: 1 } });
    const all = messages.map((m) => m.content).join('\n');
    expect(all).toContain('- billing: invoices, refunds');
    expect(all).toContain('a route not offered this round');
  });
});
