import { existsSync } from 'node:fs';
import type { SyncedProfile, WorkflowChoices } from '@shared/contracts/profile-store';
import { DeploymentSettings } from '@shared/contracts/profiles';
import type { LifecyclePhase } from '@shared/contracts/spec';
import type { PromotionSettings } from '@shared/policy/promotion';
import { ProfileStore } from '../../profiles/profile-store';
import type { TrialTarget } from './trial-cases';

/**
 * The promotion rules a trial measures the candidate against: the node's chosen deployment profile
 * version (a graph node's own choice, issue 29; an agent workflow's deployment choice), or Steward's
 * defaults; and its phase, when that profile names one (otherwise the phase its runs recorded).
 */
export interface TrialDeployment {
  phase?: LifecyclePhase;
  promotion: PromotionSettings;
  /** `Name · vN` of the profile it came from. */
  profile?: string;
}

const DEFAULTS = DeploymentSettings.parse({}).promotion;

export function deploymentFor(kept: { profiles: readonly SyncedProfile[]; workflow_choices: readonly WorkflowChoices[] }, target: TrialTarget): TrialDeployment {
  const workflowId = target.kind === 'spec' ? target.spec_id : target.workflow_id;
  const choices = kept.workflow_choices.find((c) => c.workflow_id === workflowId);
  const nodes = choices?.nodes;
  const choice = target.kind === 'node' ? (nodes && Object.hasOwn(nodes, target.node_id) ? nodes[target.node_id]?.deployment : undefined) : choices?.profiles.deployment;
  const profile = choice && kept.profiles.map((p) => p.profile).find((p) => p.kind === 'deployment' && p.id === choice.id && p.version === choice.version);
  if (profile?.kind !== 'deployment') return { promotion: DEFAULTS };
  return { phase: profile.deployment.phase, promotion: profile.deployment.promotion, profile: `${profile.name} · v${profile.version}` };
}

/** The data folder's kept profiles (none when it has no profile file yet). */
export function folderDeployment(dataDir: string, target: TrialTarget): TrialDeployment {
  if (!existsSync(dataDir)) return { promotion: DEFAULTS };
  try {
    return deploymentFor(new ProfileStore(dataDir).list(), target);
  } catch {
    return { promotion: DEFAULTS };
  }
}
