import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { supervisionFact } from './supervisor-fact';
import { supervisedTrace } from './testing/supervised-trace';

const workflowRow = { supervision_enabled: false, workflow: { nodes: 5, invocations: {}, invocation_rounds: {} } };
const unsupervised = (events: RunEvent[]) => events.filter((e) => !e.type.startsWith('supervisor.')).map((e) => (e.type === 'workflow.started' ? { ...e, supervisor: undefined } : e));

describe("the run header's supervision fact", () => {
  it('a workflow run a model supervised names the model, not the agent teacher\'s "Supervision: Off"', () => {
    expect(supervisionFact(workflowRow, supervisedTrace())).toEqual({ term: 'Supervisor', value: 'model (replay)' });
  });

  it('a workflow run a person supervises says "you"', () => {
    expect(supervisionFact(workflowRow, supervisedTrace({ askPerson: true }))).toEqual({ term: 'Supervisor', value: 'you' });
  });

  it('an unsupervised workflow run says "off"; an older trace without the supervisor named is "on" once escalated', () => {
    expect(supervisionFact(workflowRow, unsupervised(supervisedTrace()))).toEqual({ term: 'Supervisor', value: 'off' });
    const older = supervisedTrace().map((e) => (e.type === 'workflow.started' ? { ...e, supervisor: undefined } : e));
    expect(supervisionFact(workflowRow, older)).toEqual({ term: 'Supervisor', value: 'on' });
  });

  it("an agent run keeps the teacher's Supervision On / Off", () => {
    expect(supervisionFact({ supervision_enabled: true }, [])).toEqual({ term: 'Supervision', value: 'On' });
    expect(supervisionFact({ supervision_enabled: false }, [])).toEqual({ term: 'Supervision', value: 'Off' });
  });
});
