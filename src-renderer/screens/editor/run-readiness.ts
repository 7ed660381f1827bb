import type { ProviderStatus } from '@shared/contracts/host-api';
import { providerProblem, type UsedModel } from '../../components/provider-problem';
import type { Draft } from './graph-edit';

const named = (n: { id: string; label?: string; name?: string }) => `“${n.name ?? n.label ?? n.id}”`;

/** Every model the workflow's nodes and supervisor call (a teacher only where its node is supervised). */
export function modelsUsed(draft: Draft): UsedModel[] {
  const used: UsedModel[] = [];
  for (const node of draft.nodes) {
    if (node.kind === 'agent') {
      const at = `agent ${named(node)}`;
      used.push({ ref: node.models.student, node: at, role: 'student' });
      if (node.supervision.enabled) used.push({ ref: node.models.teacher, node: at, role: 'teacher' });
    } else if (node.kind === 'pattern') {
      const at = `pattern ${named(node)}`;
      for (const m of node.members) {
        used.push({ ref: m.models.student, node: at, role: `member ${m.id}` });
        if (m.supervision.enabled) used.push({ ref: m.models.teacher, node: at, role: `member ${m.id}’s teacher` });
      }
      for (const [profile, ref] of Object.entries(node.judge_models)) used.push({ ref, node: at, role: `judge “${profile}”` });
    }
  }
  if (draft.supervisor?.enabled && draft.supervisor.who.kind === 'model') used.push({ ref: draft.supervisor.who.model, node: 'the workflow supervisor', role: '' });
  return used;
}

/** Why the workflow cannot start with its models' providers as the host found them (undefined: nothing known to be down). */
export function workflowProviderProblem(draft: Draft, providers: ProviderStatus | undefined): string | undefined {
  return providerProblem(modelsUsed(draft), providers);
}
