import { useEffect, useId, useMemo, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { ModelRef } from '@shared/contracts/model';
import type { ProviderStatus } from '@shared/contracts/host-api';
import type { ProfileChoice } from '../db/db';
import { useHost } from '../app/HostProvider';
import { choiceOf, modelOptions, openAIServersOf, type OpenAIServerOptions } from './model-options';
import type { ProfileRow } from '../db/db';
import type { HostClient } from '../host/host-client';
import { openAIStatus } from './use-openai-status';

/**
 * Replay is always offered; Ollama models when Ollama is reachable (and the current one even if
 * not); and the user's model profiles, OpenAI-compatible ones included. Choosing a profile yields
 * its ModelRef through `onChange` like any other option, or the profile through `onProfile` when
 * the caller keeps profile choices.
 */
export function ModelSelect({
  role,
  value,
  providers,
  onChange,
  onProfile,
  profile,
  disabled,
}: {
  role: 'Student' | 'Teacher';
  value: ModelRef;
  providers?: ProviderStatus;
  onChange: (ref: ModelRef) => void;
  /** Called instead of onChange when the option chosen is one of the user's model profiles. */
  onProfile?: (choice: ProfileChoice) => void;
  /** The profile the caller keeps for this role, selected over another option with the same model. */
  profile?: ProfileChoice;
  disabled?: boolean;
}) {
  const id = useId();
  const { db, client } = useHost();
  const profiles = useLiveQuery(() => db.profiles.where('kind').anyOf('student', 'teacher').toArray(), [db]);
  const openai = useOpenAIServers(client, profiles);
  const { groups, selected } = modelOptions({ role: role === 'Student' ? 'student' : 'teacher', value, providers, profiles: profiles ?? [], profile, openai });

  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {role}
      </label>
      <select
        id={id}
        className="select"
        value={selected}
        disabled={disabled}
        data-testid={`model-select-${role.toLowerCase()}`}
        onChange={(e) => {
          const choice = choiceOf(groups, e.target.value);
          if (!choice) return;
          // A caller that keeps profile choices takes the profile itself (not a model to find it by).
          if (choice.profile && onProfile) onProfile(choice.profile);
          else onChange(choice.ref);
        }}
      >
        {groups.map((group) => {
          const options = group.options.map((o) => (
            <option key={o.value} value={o.value} disabled={o.disabled}>
              {o.label}
            </option>
          ));
          return group.label ? (
            <optgroup key={group.label} label={group.label}>
              {options}
            </optgroup>
          ) : (
            options
          );
        })}
      </select>
    </div>
  );
}

/** The OpenAI-compatible servers the user's profiles use, each with what the host found there (shared answers). */
function useOpenAIServers(client: Pick<HostClient, 'request'>, profiles: readonly ProfileRow[] | undefined): OpenAIServerOptions[] {
  const servers = useMemo(() => openAIServersOf(profiles ?? []), [profiles]);
  const serversKey = servers.map((t) => `${t.base_url}|${t.api_key ?? ''}`).join(',');
  const [found, setFound] = useState<Record<string, OpenAIServerOptions['status']>>({});
  useEffect(() => {
    let live = true;
    for (const t of servers) {
      const key = `${t.base_url}|${t.api_key ?? ''}`;
      openAIStatus(client, { base_url: t.base_url, ...(t.api_key ? { api_key: t.api_key } : {}) }).then(
        (status) => live && setFound((f) => ({ ...f, [key]: status })),
        (err: unknown) => live && setFound((f) => ({ ...f, [key]: { error: `could not ask the host: ${err instanceof Error ? err.message : String(err)}` } })),
      );
    }
    return () => {
      live = false;
    };
    // The servers' identity, not the array's: a live query hands a new array on every change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, serversKey]);
  return servers.map((template) => ({ template, status: found[`${template.base_url}|${template.api_key ?? ''}`] }));
}
