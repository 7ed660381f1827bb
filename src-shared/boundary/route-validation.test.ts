import { describe, expect, it } from 'vitest';
import { candidateFromValue } from './parse-candidate';
import { describeIssues, validateCandidate } from './validation';
import { boundaryInput, FILE_TOOLS, jsonReply, verdictReply } from './testing/fixtures';
import { InMemoryHost } from './testing/in-memory-host';
import { AgentRoutes, describeTakenRoute, routeChooser } from '../contracts/routes';
import type { ToolSnapshot } from '../contracts/tool-snapshot';

// Issue 29, reroute routes: a node's routes are offered like its tools, and a reroute names one.

const ROUTED: ToolSnapshot = { ...FILE_TOOLS, routes: [{ name: 'billing', description: 'invoices and payments' }, { name: 'support' }] };
const reroute = (target: string, reason = 'it is about an invoice') => ({ decision_type: 'reroute', target, reason });
const validate = (value: unknown, snapshot: ToolSnapshot = ROUTED) => validateCandidate(candidateFromValue(value), snapshot);

describe('reroute validation against the routes offered this round', () => {
  it('a reroute to an offered route passes', () => {
    const v = validate(reroute('billing'));
    expect(v.result).toEqual({ ok: true, issues: [] });
    expect(v.decision).toEqual(reroute('billing'));
  });

  it('a reroute to a route not offered is a validation failure that names the offered ones, in words', () => {
    const v = validate(reroute('sales'));
    expect(v.result.ok).toBe(false);
    expect(v.result.issues).toEqual([{ code: 'route_not_offered', message: 'route "sales" was not offered this round (offered: billing, support)' }]);
    // The decision is kept for the teacher to repair, as for a tool not offered.
    expect(v.decision).toEqual(reroute('sales'));
    expect(describeIssues(v.result.issues)).toBe('a route not offered this round: route "sales" was not offered this round (offered: billing, support)');
  });

  it('route names are matched exactly (no case folding, no prefix)', () => {
    expect(validate(reroute('Billing')).result.ok).toBe(false);
    expect(validate(reroute('bill')).result.ok).toBe(false);
  });

  it('a node that declares no routes keeps reroute as it was (valid; the run ends it as a refusal)', () => {
    expect(validate(reroute('anywhere'), FILE_TOOLS).result).toEqual({ ok: true, issues: [] });
  });

  it('an empty route list offers none: every reroute fails validation', () => {
    const v = validate(reroute('billing'), { ...FILE_TOOLS, routes: [] });
    expect(v.result.issues).toEqual([{ code: 'route_not_offered', message: 'route "billing" was not offered this round (offered: none)' }]);
  });

  it('routes leave tool calls and other control decisions alone', () => {
    expect(validate({ decision_type: 'tool_call', tool_name: 'read_file', arguments: { path: 'a' } }).result.ok).toBe(true);
    expect(validate({ decision_type: 'complete', output: 'done' }).result.ok).toBe(true);
  });
});

describe('the routes contract', () => {
  it('takes port-like names, refuses duplicates and the agent\'s own "output"', () => {
    expect(AgentRoutes.safeParse([{ name: 'billing' }, { name: 'support', description: 'help' }]).success).toBe(true);
    const dup = AgentRoutes.safeParse([{ name: 'billing' }, { name: 'billing' }]);
    expect(dup.success).toBe(false);
    expect(dup.error?.issues[0]?.message).toBe('duplicate route billing');
    expect(AgentRoutes.safeParse([{ name: 'output' }]).error?.issues[0]?.message).toMatch(/"output" is the agent's answer port/);
    expect(AgentRoutes.safeParse([{ name: 'Billing Team' }]).success).toBe(false);
  });

  it('says who chose the route: the student, the teacher, its repair, a person', () => {
    expect(routeChooser('student', 'student')).toBe('student');
    expect(routeChooser('student', 'teacher')).toBe('teacher_repair');
    expect(routeChooser('teacher', 'teacher')).toBe('teacher');
    expect(routeChooser('student', 'human')).toBe('person');
    expect(describeTakenRoute({ name: 'billing', chosen_by: 'teacher_repair', reason: 'an invoice' })).toBe("took route billing (chosen by the teacher's repair): an invoice");
  });
});

describe('the boundary with routes', () => {
  it('a reroute to an unoffered route is repaired by the teacher with an offered one, which is what is selected', async () => {
    const host = new InMemoryHost({
      student: [jsonReply(reroute('sales'))],
      teacher: [verdictReply({ verdict: 'replace', reason_codes: ['other'], explanation: 'sales is not a route here', replacement: reroute('billing', 'an invoice question') })],
    });
    const { record } = await host.runRound(boundaryInput({ snapshot: ROUTED }));
    expect(record.validation?.issues.map((i) => i.code)).toEqual(['route_not_offered']);
    expect(record.review).toEqual({ required: true, rule: 'validation_failed' });
    expect(record.outcome).toBe('delivered');
    expect(record.selected).toEqual({ source: 'teacher', decision: reroute('billing', 'an invoice question') });
    // Only the selected decision reaches history (I1): the student's "sales" never does.
    expect(JSON.stringify(host.history)).not.toContain('sales');
  });

  it('a teacher replacement to an unoffered route fails the same validation (I3) and is never selected', async () => {
    const host = new InMemoryHost({
      student: [jsonReply(reroute('sales'))],
      teacher: [verdictReply({ verdict: 'replace', reason_codes: ['other'], explanation: 'try marketing', replacement: reroute('marketing') })],
    });
    const { record } = await host.runRound(boundaryInput({ snapshot: ROUTED, supervision: { max_verdict_attempts: 1 } }));
    expect(record.outcome).toBe('blocked');
    expect(record.verdicts[0]?.replacement_validation?.issues.map((i) => i.code)).toEqual(['route_not_offered']);
    expect(record.selected).toBeUndefined();
    expect(host.history).toEqual([]);
  });

  it('the student may repair its own unoffered route within the round', async () => {
    const host = new InMemoryHost({ student: [jsonReply(reroute('sales')), jsonReply(reroute('support', 'a login problem'))] });
    const { record } = await host.runRound(boundaryInput({ snapshot: ROUTED, supervision: { max_repair_rounds: 1, phase: 4 } }));
    expect(record.repairs).toHaveLength(1);
    expect(record.outcome).toBe('delivered');
    expect(record.selected).toEqual({ source: 'student', decision: reroute('support', 'a login problem') });
  });
});
