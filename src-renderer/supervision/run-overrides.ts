import type { HostParams, RunOverrides } from '@shared/contracts/host-api';
import { PROFILE_KINDS, type ProfileKind, type ProfileVersionRef } from '@shared/contracts/profiles';
import { SupervisionSpec } from '@shared/contracts/spec';
import type { ResolvedProfiles } from '../db/workflow-profiles';
import type { ProfileOf } from '../db/profiles';
import type { WorkflowRow } from '../db/db';
import { scsSettingsOf } from '../db/workflow-scs';

export interface RunConfig {
  /** The workflow's "Enable supervision and learning" switch. */
  enabled: boolean;
  profiles: ResolvedProfiles;
  dryRun?: boolean;
}

/** The supervision a run gets: the supervision profile's rules, the deployment profile's phase, the workflow's switch. */
export function effectiveSupervision(
  enabled: boolean,
  supervision: Pick<ProfileOf<'supervision'>, 'supervision'>,
  deployment: Pick<ProfileOf<'deployment'>, 'deployment'> | undefined,
): SupervisionSpec {
  return SupervisionSpec.parse({ ...supervision.supervision, enabled, phase: deployment?.deployment.phase ?? 3 });
}

/**
 * `run.start` overrides from the panel's choices. Every setting comes from a stored profile version,
 * and the versions are recorded on the run; a kind with no profile leaves the workflow file's own.
 * The privacy policy and tool effects are the host's: they are not sent.
 */
export function buildRunOverrides(config: RunConfig): RunOverrides {
  const { profiles: p } = config;
  const overrides: RunOverrides = { supervision_enabled: config.enabled };
  if (p.supervision) overrides.supervision = effectiveSupervision(config.enabled, p.supervision, p.deployment);
  if (p.student) overrides.student = p.student.model;
  if (p.teacher) overrides.teacher = p.teacher.model;
  if (p.trace) overrides.trace = p.trace.trace;
  if (p.learning_data) overrides.learning = p.learning_data.learning;
  const refs: Partial<Record<ProfileKind, ProfileVersionRef>> = {};
  for (const kind of PROFILE_KINDS) {
    const profile = p[kind];
    if (profile) refs[kind] = { id: profile.id, name: profile.name, version: profile.version };
  }
  overrides.profiles = refs;
  if (config.dryRun) overrides.dry_run = true;
  return overrides;
}

/**
 * What Run (and Dry-run) send: the workflow's own document — with its SCS settings, which have no
 * override and travel in the document — and the overrides from its saved profiles.
 */
export function runStartParams(
  row: WorkflowRow,
  config: { resolved: ResolvedProfiles },
  options: { dryRun?: boolean } = {},
): HostParams<'run.start'> {
  const overrides = buildRunOverrides({
    enabled: row.supervision_enabled,
    profiles: config.resolved,
    dryRun: options.dryRun,
  });
  return { workflow: { ...row.doc, scs: scsSettingsOf(row.doc) }, overrides };
}
