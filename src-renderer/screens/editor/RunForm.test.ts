import { describe, expect, it } from 'vitest';
import type { ProfileRow } from '../../db/db';
import { traceChoices } from './RunForm';
import { traceChoiceParams } from './WorkflowTraceChoice';

const at = '2026-12-01T00:00:00.000Z';
const trace = (id: string, version: number, settings: Record<string, unknown>): ProfileRow =>
  ({ kind: 'trace', id, name: id, version, created_at: at, description: '', origin: 'user', trace: { include_tool_results: true, ...settings } }) as ProfileRow;

describe("the workflow Run form's trace profile choices", () => {
  it('offers each trace profile at its newest version, says when the host deletes its runs, and sends its settings with the version they came from', () => {
    const choices = traceChoices([
      trace('keep-3', 1, { retention_runs: 5 }),
      trace('keep-3', 2, { retention_runs: 3 }),
      trace('month', 1, { retention_days: 30 }),
      trace('forever', 1, {}),
      { kind: 'student', id: 'm', name: 'm', version: 1, created_at: at, description: '', origin: 'user', model: { provider: 'script' } } as ProfileRow,
    ]);
    expect(choices.map((c) => c.label)).toEqual(['forever · v1 — kept forever', 'keep-3 · v2 — newest 3 runs kept', 'month · v1 — deleted 30 days after it ends']);
    expect(choices[1]?.chosen).toEqual({ trace: { include_tool_results: true, retention_runs: 3 }, trace_profile: { id: 'keep-3', name: 'keep-3', version: 2 } });
  });
});

describe("a workflow's own trace profile", () => {
  it('is saved on the host as its trace choice, keeping what else the host holds for that id; none clears only the trace', () => {
    const now = new Date(at);
    const held = { workflow_id: 'triage', profiles: { student: { id: 's', version: 2 }, trace: { id: 'old', version: 1 } }, supervision_enabled: false, updated_at: at };
    expect(traceChoiceParams('triage', { id: 'keep-3', version: 2 }, held, now)).toEqual({
      profiles: [],
      workflow_choices: [{ workflow_id: 'triage', profiles: { student: { id: 's', version: 2 }, trace: { id: 'keep-3', version: 2 } }, supervision_enabled: false, updated_at: at }],
    });
    expect(traceChoiceParams('triage', undefined, held, now).workflow_choices?.[0]?.profiles).toEqual({ student: { id: 's', version: 2 } });
    expect(traceChoiceParams('new', undefined, undefined, now).workflow_choices?.[0]).toMatchObject({ profiles: {}, supervision_enabled: true });
  });
});
