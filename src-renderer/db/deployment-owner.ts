import type { ProfileRow, WorkflowRow } from './db';
import { isReadOnlyProfile, latestOfEach } from './profiles';

/**
 * The workflow a deployment profile belongs to (the lifecycle phase is earned per workflow): the
 * one it names, or — a profile made before deployments named theirs — the workflow that chose it.
 * Undefined for any other profile, a built-in, or a deployment nobody owns (anyone may pick it).
 */
export function deploymentOwner(row: ProfileRow, workflows: readonly Pick<WorkflowRow, 'id' | 'profiles'>[]): string | undefined {
  if (row.kind !== 'deployment' || isReadOnlyProfile(row)) return undefined;
  // A workflow graph's agent node's own (issue 29): no workflow's picker offers it.
  if (row.node_id !== undefined) return `${row.workflow_id ?? ''}#${row.node_id}`;
  if (row.workflow_id !== undefined) return row.workflow_id;
  return workflows.find((w) => w.profiles?.deployment?.id === row.id)?.id;
}

/**
 * The profile rows a workflow's Deployment picker offers: its own deployments, the built-in phases
 * and any owned by no workflow — never another workflow's (promoting that one would move its phase).
 */
export function deploymentRowsFor(rows: readonly ProfileRow[], workflow: Pick<WorkflowRow, 'id' | 'profiles'>, workflows: readonly Pick<WorkflowRow, 'id' | 'profiles'>[]): ProfileRow[] {
  const workflowId = workflow.id;
  const chosen = workflow.profiles?.deployment?.id;
  // A profile's owner is read from its newest version (an older one may predate `workflow_id`).
  const owners = new Map(latestOfEach(rows.filter((r) => r.kind === 'deployment')).map((r) => [r.id, deploymentOwner(r, workflows)]));
  return rows.filter((row) => {
    // What the workflow has chosen stays visible, whoever owns it.
    if (row.kind !== 'deployment' || row.id === chosen) return true;
    const owner = owners.get(row.id);
    return owner === undefined || owner === workflowId;
  });
}

const ORIGIN_LABELS = { builtin: 'built-in', user: 'yours', imported: 'imported' } as const satisfies Record<ProfileRow['origin'], string>;

/** Where a profile came from, as Settings labels it: a demo workflow's own deployment is the demo's, not the person's. */
export function profileOriginLabel(row: ProfileRow, workflows: readonly Pick<WorkflowRow, 'id' | 'name' | 'profiles' | 'source'>[]): 'built-in' | 'yours' | 'imported' | 'demo' {
  if (isReadOnlyProfile(row)) return ORIGIN_LABELS.builtin;
  const owner = deploymentOwner(row, workflows);
  if (owner !== undefined && workflows.find((w) => w.id === owner)?.source === 'demo') return 'demo';
  // The supervision a demo's file implies (workflow-profiles.ts names it so), as made: nobody edited it yet.
  if (row.kind === 'supervision' && row.version === 1 && workflows.some((w) => w.source === 'demo' && row.name === `${w.name} (from its file)` && w.profiles?.supervision?.id === row.id)) return 'demo';
  return ORIGIN_LABELS[row.origin];
}
