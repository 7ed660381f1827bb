import { useEffect, useId, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { HostParams } from '@shared/contracts/host-api';
import type { WorkflowChoices } from '@shared/contracts/profile-store';
import { useHost } from '../../app/HostProvider';
import { FieldRow } from '../../components/Form';
import type { ProfileRow } from '../../db/db';
import { isReadOnlyProfile } from '../../db/profiles';
import { traceChoices } from './RunForm';

/**
 * What `profiles.save` sends for a workflow's own trace profile: the choice the host applies to its
 * runs that name none (workflows.run). Whatever else the host holds for that id stays as it is.
 */
export function traceChoiceParams(workflowId: string, profile: Pick<ProfileRow, 'id' | 'version'> | undefined, held: WorkflowChoices | undefined, now: Date): HostParams<'profiles.save'> {
  const { trace: _old, ...others } = held?.profiles ?? {};
  return {
    profiles: [],
    workflow_choices: [
      { workflow_id: workflowId, profiles: { ...others, ...(profile ? { trace: { id: profile.id, version: profile.version } } : {}) }, supervision_enabled: held?.supervision_enabled ?? true, updated_at: now.toISOString() },
    ],
  };
}

/**
 * The workflow's own trace profile, kept on the host: what its runs' traces keep, and when the host
 * deletes them. Only a profile the host keeps (one you made or imported) can be the workflow's own;
 * a built-in one can be chosen for one run in the Run form.
 */
export function WorkflowTraceChoice({ workflowId }: { workflowId: string }) {
  const { client, db, connection } = useHost();
  const id = useId();
  const rows = useLiveQuery(() => db.profiles.where('kind').equals('trace').toArray(), [db]) ?? [];
  const choices = traceChoices(rows.filter((r) => !isReadOnlyProfile(r)));
  const [chosen, setChosen] = useState('');
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    void client.request('profiles.list', {}).then(
      ({ workflow_choices }) => {
        const trace = workflow_choices.find((c) => c.workflow_id === workflowId)?.profiles.trace;
        if (live) setChosen(trace ? `${trace.id}@${trace.version}` : '');
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client, connection, workflowId]);
  const choose = async (key: string) => {
    const row = rows.find((r) => `${r.id}@${r.version}` === key);
    setError(undefined);
    try {
      const { workflow_choices } = await client.request('profiles.list', {});
      await client.request('profiles.save', traceChoiceParams(workflowId, row, workflow_choices.find((c) => c.workflow_id === workflowId), new Date()));
      setChosen(key);
    } catch (err) {
      setError(`Not kept: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  return (
    <FieldRow label="Trace profile" htmlFor={`${id}-trace`} hint="What its runs’ traces keep, and when the host deletes them (never while a run runs or waits for you). The Run form can choose another for one run." issue={error}>
      <select id={`${id}-trace`} className="select" value={chosen} disabled={connection !== 'open'} onChange={(e) => void choose(e.target.value)} data-testid="workflow-trace-profile">
        <option value="">None: traces are kept whole, forever</option>
        {choices.map((c) => (
          <option key={c.key} value={c.key}>
            {c.label}
          </option>
        ))}
      </select>
    </FieldRow>
  );
}
