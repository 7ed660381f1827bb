import { LOCAL, settings } from '../src-shared/supervisor/testing/fixtures';
import { ScriptedSupervisorDouble, type ScriptedAnswer } from '../src-shared/supervisor/testing/scripted-supervisor';
import type { WorkflowSupervisionOptions } from '../src-main/workflow/supervision/workflow-supervision';

/** A workflow run supervised by the scripted double (the model boundary's test double), answering in turn. */
export function supervisedBy(answers: ScriptedAnswer[]): { double: ScriptedSupervisorDouble; supervision: WorkflowSupervisionOptions } {
  const double = new ScriptedSupervisorDouble(answers);
  return { double, supervision: { settings: settings(), supervisor: { identity: LOCAL, decide: (input, signal) => double.decide(input, signal) } } };
}
