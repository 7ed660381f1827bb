import { useId } from 'react';
import { ModelRef, modelLabel } from '@shared/contracts/model';
import type { ProviderStatus } from '@shared/contracts/host-api';

const REPLAY = 'script';

function valueOf(ref: ModelRef): string {
  return ref.provider === 'script' ? REPLAY : ref.provider === 'ollama' ? `ollama:${ref.model}` : `other:${modelLabel(ref)}`;
}

/** Replay is always offered; Ollama models when Ollama is reachable (and the current one even if not). */
export function ModelSelect({
  role,
  value,
  providers,
  onChange,
  disabled,
}: {
  role: 'Student' | 'Teacher';
  value: ModelRef;
  providers?: ProviderStatus;
  onChange: (ref: ModelRef) => void;
  disabled?: boolean;
}) {
  const id = useId();
  const ollama = providers?.ollama.reachable ? providers.ollama.models : [];
  const current = valueOf(value);
  const currentMissing = (value.provider === 'ollama' && !ollama.some((m) => m.name === value.model)) || value.provider === 'openai_compatible';

  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {role}
      </label>
      <select
        id={id}
        className="select"
        value={current}
        disabled={disabled}
        data-testid={`model-select-${role.toLowerCase()}`}
        onChange={(e) => {
          const next = e.target.value;
          if (next === REPLAY) onChange({ provider: 'script' });
          else if (next.startsWith('ollama:')) onChange(ModelRef.parse({ provider: 'ollama', model: next.slice('ollama:'.length) }));
        }}
      >
        <option value={REPLAY}>replay (scripted)</option>
        {ollama.length > 0 && (
          <optgroup label="Ollama">
            {ollama.map((m) => (
              <option key={m.name} value={`ollama:${m.name}`}>
                {m.name}
                {m.parameter_size ? ` · ${m.parameter_size}` : ''}
              </option>
            ))}
          </optgroup>
        )}
        {currentMissing && (
          <option value={current} disabled={value.provider === 'openai_compatible'}>
            {modelLabel(value)}
            {value.provider === 'ollama' ? ' (not available)' : ''}
          </option>
        )}
      </select>
    </div>
  );
}
