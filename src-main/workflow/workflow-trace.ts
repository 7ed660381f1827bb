import type { ProfileVersionRef, TraceSettings } from '@shared/contracts/profiles';
import type { SyncedProfile, WorkflowChoices } from '@shared/contracts/profile-store';

/** The trace profile a workflow run gets, and the version it came from. */
export interface WorkflowTrace {
  trace?: TraceSettings;
  traceProfile?: ProfileVersionRef;
}

/**
 * A workflow run's trace profile: the one the request names (the app's Run form), else the one the
 * workflow's own choices name among the profiles the host keeps (profiles.json). A built-in profile
 * is not kept on the host, so a choice of one is the page's to send; nothing found: the trace keeps
 * everything, forever.
 */
export function workflowTrace(
  requested: { trace?: TraceSettings; trace_profile?: ProfileVersionRef },
  workflowId: string,
  kept: { profiles: readonly SyncedProfile[]; workflow_choices: readonly WorkflowChoices[] },
): WorkflowTrace {
  if (requested.trace) return { trace: requested.trace, ...(requested.trace_profile ? { traceProfile: requested.trace_profile } : {}) };
  const choice = kept.workflow_choices.find((c) => c.workflow_id === workflowId)?.profiles.trace;
  if (!choice) return {};
  const profile = kept.profiles.map((p) => p.profile).find((p) => p.kind === 'trace' && p.id === choice.id && p.version === choice.version);
  if (profile?.kind !== 'trace') return {};
  return { trace: profile.trace, traceProfile: { id: profile.id, name: profile.name, version: profile.version } };
}
