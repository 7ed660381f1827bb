import { useId } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { ModelRef } from '@shared/contracts/model';
import type { ProviderStatus } from '@shared/contracts/host-api';
import type { ProfileChoice } from '../db/db';
import { useHost } from '../app/HostProvider';
import { choiceOf, modelOptions } from './model-options';
import { useOpenAIServers } from './use-openai-servers';

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
  label,
  testId,
}: {
  role: 'Student' | 'Teacher';
  /** The field's label when it is not the role's (the workflow supervisor's model picks like a teacher's). */
  label?: string;
  testId?: string;
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
        {label ?? role}
      </label>
      <select
        id={id}
        className="select"
        value={selected}
        disabled={disabled}
        data-testid={testId ?? `model-select-${role.toLowerCase()}`}
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
