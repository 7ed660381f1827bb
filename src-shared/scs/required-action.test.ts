import { describe, expect, it } from 'vitest';
import { PLANS, monitorAnswer } from './testing/fixtures';
import { contradiction, requiredByDecision, requiredByPlan } from './required-action';

describe('next_required_action, as the boundary enforces it', () => {
  it('finish: anything but complete contradicts it, with a reason that says why', () => {
    const required = requiredByDecision(monitorAnswer('accept_phase', { next_required_action: 'finish' }));
    expect(required?.kind).toBe('finish');
    if (!required) return;
    expect(contradiction(required, { decision_type: 'complete' })).toBeUndefined();
    expect(contradiction(required, { decision_type: 'tool_call', tool_name: 'write_file' })).toBe(
      "a call of write_file contradicts next_required_action: the monitor's next_required_action is finish (progress matches the plan); only complete is allowed now",
    );
  });

  it('supervisor_execute and a refused finish forbid complete; supervisor_continue and committee_rethink require nothing', () => {
    const execute = requiredByDecision(monitorAnswer('approve_plan', { next_required_action: 'supervisor_execute' }));
    const refused = requiredByDecision(monitorAnswer('finish_rejected'));
    for (const r of [execute, refused]) {
      expect(r?.kind).toBe('execute');
      if (!r) continue;
      expect(contradiction(r, { decision_type: 'complete' })).toMatch(/^complete contradicts next_required_action: /);
      expect(contradiction(r, { decision_type: 'tool_call', tool_name: 'read_file' })).toBeUndefined();
    }
    expect(requiredByDecision(monitorAnswer('accept_phase', { next_required_action: 'supervisor_continue' }))).toBeUndefined();
    expect(requiredByDecision(monitorAnswer('rethink_plan', { next_required_action: 'committee_rethink' }))).toBeUndefined();
  });

  it('a phase brief requires its first tool, if it is one of the allowed tools', () => {
    const required = requiredByPlan({ ...PLANS.summarise, next_required_action: 'read_file' }, 2);
    expect(required).toEqual({ kind: 'tool', tool: 'read_file', why: "the phase 2 brief's next_required_action is to call read_file first" });
    if (!required) return;
    expect(contradiction(required, { decision_type: 'tool_call', tool_name: 'write_file' })).toMatch(/^a call of write_file contradicts next_required_action/);
    expect(contradiction(required, { decision_type: 'complete' })).toMatch(/^complete contradicts/);
    expect(requiredByPlan({ ...PLANS.summarise, next_required_action: 'delete_file' }, 1)).toBeUndefined();
  });
});
