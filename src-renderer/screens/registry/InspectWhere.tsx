import type { Workspace } from '@shared/contracts/host-registry';
import { useHostRegistry } from '../../host/use-host-registry';

/**
 * Where Inspect starts a server that opens a workspace folder, in words: the workspace's label
 * (what a person named it), never its internal id; the id and the folder stay in the tooltip.
 */
export function InspectWhereText({ id, workspace, workspaces }: { id: string; workspace?: string; workspaces: readonly Workspace[] }) {
  const known = workspace === undefined ? undefined : workspaces.find((w) => w.id === workspace);
  return (
    <p className="muted" id={id} data-testid="inspect-where">
      {workspace === undefined ? (
        'It opens a workspace folder: add a workspace below to inspect it.'
      ) : known ? (
        <>
          Inspect starts it in the folder of the workspace{' '}
          <span title={`Workspace id: ${known.id} · folder: ${known.path}`} data-testid="inspect-where-workspace">
            “{known.label}”
          </span>
          .
        </>
      ) : (
        <>
          Inspect starts it in a workspace a workflow names but this host has not registered:{' '}
          <span title={`Workspace id: ${workspace}`}>add it below</span> first, or the server cannot start.
        </>
      )}
    </p>
  );
}

/** {@link InspectWhereText} with the host's registered workspaces. */
export function InspectWhere({ id, workspace }: { id: string; workspace?: string }) {
  const { state } = useHostRegistry();
  return <InspectWhereText id={id} workspace={workspace} workspaces={state?.workspaces ?? []} />;
}
