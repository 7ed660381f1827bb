import { DeploymentSettings, type Profile } from '@shared/contracts/profiles';
import type { LifecyclePhase } from '@shared/contracts/spec';
import type { HostResult } from '@shared/contracts/host-api';
import type { WorkflowChoices } from '@shared/contracts/profile-store';
import type { HostClient } from '../host/host-client';
import type { ProfileRow, StewardDb } from './db';
import { latestOfEach, uniqueProfileName } from './profiles';
import { renameForPhase } from './workflow-profiles';

type Kept = HostResult<'profiles.list'>;
type DeploymentProfile = Extract<Profile, { kind: 'deployment' }>;

/** What a workflow graph's agent node runs in: its deployment profile version (if it has one) and the settings promotion reads. */
export interface NodeDeployment {
  /** The node's own deployment profile version the host holds; absent: the phase its document says. */
  profile?: DeploymentProfile;
  deployment: DeploymentSettings;
}

/** The node's deployment as the host holds it: its chosen profile version, else its document's phase with default promotion settings. */
export function nodeDeploymentOf(kept: Kept, workflowId: string, nodeId: string, documentPhase: LifecyclePhase): NodeDeployment {
  const choice = nodeChoiceOf(kept.workflow_choices, workflowId, nodeId);
  const profile = choice && kept.profiles.map((p) => p.profile).find((p): p is DeploymentProfile => p.kind === 'deployment' && p.id === choice.id && p.version === choice.version);
  return profile ? { profile, deployment: profile.deployment } : { deployment: DeploymentSettings.parse({ phase: documentPhase }) };
}

function nodeChoiceOf(choices: readonly WorkflowChoices[], workflowId: string, nodeId: string) {
  const nodes = choices.find((c) => c.workflow_id === workflowId)?.nodes;
  return nodes && Object.hasOwn(nodes, nodeId) ? nodes[nodeId]?.deployment : undefined;
}

/** A profile id of the node's own (ids are at most 80 characters). */
const nodeProfileId = (workflowId: string, nodeId: string) => `deployment-${workflowId}-${nodeId}`.slice(0, 80);

/**
 * Applies a phase change a person accepted on a node's Promotion card (issue 29): the node's
 * deployment profile gets its next version with the new phase (a node without one gets its own,
 * version 1), and the workflow's choices on the host move that node to it; the workflow's other
 * nodes and other workflows keep theirs. The next run of the workflow runs the node in that phase
 * and records the version on its agent.started. Never called by the app on its own.
 */
export async function applyNodeDeploymentPhase(
  client: Pick<HostClient, 'request'>,
  db: StewardDb,
  target: { workflowId: string; workflowName: string; nodeId: string; nodeLabel: string; documentPhase: LifecyclePhase },
  phase: LifecyclePhase,
  now = new Date(),
): Promise<DeploymentProfile> {
  const kept = await client.request('profiles.list', {});
  const current = nodeDeploymentOf(kept, target.workflowId, target.nodeId, target.documentPhase);
  const rows: ProfileRow[] = [...kept.profiles.map((p) => ({ ...p.profile, origin: p.origin })), ...(await db.profiles.where('kind').equals('deployment').toArray())];
  const id = current.profile?.id ?? nodeProfileId(target.workflowId, target.nodeId);
  const version = Math.max(0, ...rows.filter((p) => p.id === id).map((p) => p.version)) + 1;
  const baseName = current.profile ? renameForPhase(current.profile.name, phase) : `${target.workflowName} › ${target.nodeLabel} · deployment`;
  const next: DeploymentProfile = {
    kind: 'deployment',
    id,
    version,
    name: uniqueProfileName(latestOfEach(rows), 'deployment', baseName, id),
    created_at: now.toISOString(),
    description: current.profile?.description ?? `The lifecycle phase of the ${target.nodeLabel} node of ${target.workflowName}, and when Learning suggests changing it.`,
    deployment: { ...current.deployment, phase },
    workflow_id: target.workflowId,
    node_id: target.nodeId,
  };
  const held = kept.workflow_choices.find((c) => c.workflow_id === target.workflowId);
  const choices: WorkflowChoices = {
    workflow_id: target.workflowId,
    profiles: held?.profiles ?? {},
    supervision_enabled: held?.supervision_enabled ?? true,
    // Strictly after what the host holds, so the host takes it even within one millisecond of another save.
    updated_at: new Date(Math.max(now.getTime(), held ? Date.parse(held.updated_at) + 1 : 0)).toISOString(),
    nodes: { ...held?.nodes, [target.nodeId]: { deployment: { id, version } } },
  };
  const saved = await client.request('profiles.save', { profiles: [{ origin: 'user', profile: next }], workflow_choices: [choices] });
  if (saved.conflicts.length > 0) throw new Error(`Not applied: ${saved.conflicts.map((c) => c.message).join(' ')}`);
  if (saved.choices_taken === 0) throw new Error('Not applied: the host kept newer choices for this workflow (changed in another browser). Reload and try again.');
  // This page lists it too (Settings), as the exchange with the host would on its next pass.
  await db.profiles.put({ ...next, origin: 'user' });
  return next;
}
