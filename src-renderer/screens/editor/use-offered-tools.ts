import { useMemo } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { HostedServerRef } from '@shared/contracts/hosted-workflow';
import type { OfferedTool } from '@shared/workflow/starter-script';
import { useHost } from '../../app/HostProvider';
import type { RegistryRow } from '../../db/db';

/** The workflow servers an agent node may use: the ones it names, or all of the workflow's. */
export function nodeServers(all: readonly HostedServerRef[], named: readonly string[] | undefined): HostedServerRef[] {
  return named === undefined ? [...all] : all.filter((s) => named.includes(s.id));
}

/** The tools those servers offer as their last inspection listed them (a server's `tools` narrows it), in server order. */
export function offeredTools(servers: readonly HostedServerRef[], rows: readonly RegistryRow[]): OfferedTool[] {
  return servers.flatMap((ref) => rows.flatMap((r) => (r.server === ref.server && r.inspected && (ref.tools === undefined || ref.tools.includes(r.tool)) ? [r.inspected] : [])));
}

/** The inspected tools an agent node's servers offer it (live from the registry cache). */
export function useOfferedTools(servers: readonly HostedServerRef[]): OfferedTool[] {
  const { db } = useHost();
  const rows = useLiveQuery(() => db.registry.toArray(), [db]);
  return useMemo(() => offeredTools(servers, rows ?? []), [servers, rows]);
}
