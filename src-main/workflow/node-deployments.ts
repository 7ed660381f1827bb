import type { ProfileVersionRef } from '@shared/contracts/profiles';
import type { SyncedProfile, WorkflowChoices } from '@shared/contracts/profile-store';
import type { LoadedWorkflow } from './loaded-workflow';

/** The deployment profile version each agent node runs in: recorded on its agent.started. */
export type NodeProfiles = ReadonlyMap<string, { deployment: ProfileVersionRef }>;

/**
 * A workflow graph's agent nodes in the phases their own deployment profiles say (issue 29: the
 * phase is earned per agent node, and Learning's "Apply: move to phase N" saves a node's profile
 * as a new version). Looked up among the profiles the host keeps (profiles.json), by the workflow's
 * choices; a node without a choice, or whose chosen version the host does not hold, runs as its
 * document says. The graph returned is a copy; `profiles` names the version each node got.
 */
export function withNodeDeployments(loaded: LoadedWorkflow, kept: { profiles: readonly SyncedProfile[]; workflow_choices: readonly WorkflowChoices[] }): { loaded: LoadedWorkflow; profiles: NodeProfiles } {
  const choices = kept.workflow_choices.find((c) => c.workflow_id === loaded.graph.id)?.nodes;
  const profiles = new Map<string, { deployment: ProfileVersionRef }>();
  if (!choices) return { loaded, profiles };
  const nodes = loaded.graph.nodes.map((node) => {
    if (node.kind !== 'agent' || !Object.hasOwn(choices, node.id)) return node;
    const choice = choices[node.id]?.deployment;
    const profile = choice && kept.profiles.map((p) => p.profile).find((p) => p.kind === 'deployment' && p.id === choice.id && p.version === choice.version);
    if (profile?.kind !== 'deployment') return node;
    profiles.set(node.id, { deployment: { id: profile.id, name: profile.name, version: profile.version } });
    return { ...node, supervision: { ...node.supervision, phase: profile.deployment.phase } };
  });
  return { loaded: { ...loaded, graph: { ...loaded.graph, nodes } }, profiles };
}
