import { useCallback, useEffect, useMemo, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { RegistryView } from '@shared/policy/expand-workflow';
import { useHost } from '../app/HostProvider';
import { navigate } from '../app/routing';
import type { ProfileRow, RegistryRow, WorkflowRow } from '../db/db';
import { withHostEffects } from '../db/registry';
import { useHostRegistry } from '../host/use-host-registry';
import { resolveFromRows, type ResolvedProfiles } from '../db/workflow-profiles';
import { runStartParams } from './run-overrides';
import { providerProblem, type UsedModel } from '../components/provider-problem';

export interface WorkflowConfig {
  profiles: ProfileRow[];
  /** Cached inspections with the host's effect overrides as the user's. */
  registry: RegistryRow[];
  /** The host's privacy policy (it applies it to every run). */
  privacy: PrivacyPolicy;
  /** The host's registered servers, workspaces and overrides: what a run is expanded from. */
  host: RegistryView;
  resolved: ResolvedProfiles;
}

/** Everything a workflow's runs are configured from, live from the database and the host; undefined while loading. */
export function useWorkflowConfig(row: WorkflowRow | undefined): WorkflowConfig | undefined {
  const { db } = useHost();
  const profiles = useLiveQuery(() => db.profiles.toArray(), [db]);
  const cached = useLiveQuery(() => db.registry.toArray(), [db]);
  const { state: host } = useHostRegistry();
  return useMemo(() => {
    if (!row || !profiles || !cached || !host) return undefined;
    return { profiles, registry: withHostEffects(cached, host.overrides), privacy: host.privacy, host, resolved: resolveFromRows(profiles, row.profiles) };
  }, [row, profiles, cached, host]);
}

/** Starts a run of the workflow with its saved profiles; resolves to the run id. */
export function useStartRun() {
  const { client } = useHost();
  return useCallback(
    async (row: WorkflowRow, config: WorkflowConfig, options: { dryRun?: boolean } = {}) => {
      const { run_id } = await client.request('run.start', runStartParams(row, config, options));
      return run_id;
    },
    [client],
  );
}

/** The models a run of the workflow calls: its student, and its teacher while supervision is on. */
function runModels(row: WorkflowRow, config: WorkflowConfig): UsedModel[] {
  const node = `“${row.name}”`;
  // As runStartParams sends them: a chosen profile's model, else the workflow file's own.
  const student = config.resolved.student?.model ?? row.doc.models.student;
  const teacher = config.resolved.teacher?.model ?? row.doc.models.teacher;
  return [{ ref: student, node, role: 'student' }, ...(row.supervision_enabled ? [{ ref: teacher, node, role: 'teacher' }] : [])];
}

/**
 * A Run button's behaviour: start the run with the workflow's settings, then open it; while it
 * starts the button is busy, and a failure is kept for the button to show. A model whose provider
 * the host finds down (Ollama not answering) is said before anything starts (issue 28).
 */
export function useRunAndOpen() {
  const { client } = useHost();
  const startRun = useStartRun();
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string>();
  const run = useCallback(
    async (row: WorkflowRow, config: WorkflowConfig | undefined) => {
      if (!config) return;
      setStarting(true);
      setError(undefined);
      try {
        // A host that cannot say leaves nothing known to be down: the run's own start says the rest.
        const providers = await client.request('providers.status', {}).catch(() => undefined);
        const down = providerProblem(runModels(row, config), providers, 'in its Student or Teacher picker');
        if (down !== undefined) {
          setError(`Not started: ${down}`);
          setStarting(false);
          return;
        }
        const runId = await startRun(row, config);
        navigate({ name: 'run', runId, tab: 'rounds' });
      } catch (err) {
        setError(err instanceof Error ? err.message : String(err));
        setStarting(false);
      }
    },
    [client, startRun],
  );
  return { run, starting, error, setError };
}

/**
 * Names of the credentials in the host's keychain (never values); undefined until known, and while
 * the keychain cannot be reached (`unavailable` then says why, in words: nothing can be stored).
 */
export function useCredentialNames(): { names?: string[]; error?: string; unavailable?: string; refresh(): void } {
  const { client, connection } = useHost();
  const [names, setNames] = useState<string[]>();
  const [error, setError] = useState<string>();
  const [unavailable, setUnavailable] = useState<string>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (connection !== 'open') return;
    let live = true;
    client.request('credentials.list', {}).then(
      (r) => {
        if (!live) return;
        setNames(r.unavailable === undefined ? r.credentials.map((c) => c.name).sort() : undefined);
        setUnavailable(r.unavailable);
        setError(undefined);
      },
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, [client, connection, tick]);
  return { names, error, unavailable, refresh: useCallback(() => setTick((t) => t + 1), []) };
}
