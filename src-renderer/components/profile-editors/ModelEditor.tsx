import { ModelRef, type ModelRole } from '@shared/contracts/model';
import type { ProviderStatus } from '@shared/contracts/host-api';
import { routeHref } from '../../app/routing';
import { CheckField, FieldRow, NumberField, SelectField, TextField, fieldDomId } from '../Form';
import { useHost } from '../../app/HostProvider';
import { useOpenAIStatus } from '../use-openai-status';

type Provider = ModelRef['provider'];
const PROVIDER_OPTIONS: readonly { value: Provider; label: string }[] = [
  { value: 'script', label: 'Replay (scripted, for demos and tests)' },
  { value: 'ollama', label: 'Ollama (local)' },
  { value: 'openai_compatible', label: 'OpenAI-compatible server' },
];

const MODE_OPTIONS = [
  { value: 'structured', label: 'Structured output (one JSON decision)' },
  { value: 'tools', label: 'Native tool calls' },
] as const;

/** A fresh model of another provider, with the contract's defaults. */
function switchProvider(provider: Provider, providers: ProviderStatus | undefined): ModelRef {
  switch (provider) {
    case 'script':
      return { provider: 'script' };
    case 'ollama':
      return ModelRef.parse({ provider: 'ollama', model: providers?.ollama.models[0]?.name ?? 'qwen3:4b' });
    case 'openai_compatible':
      // The model name is left for the person to type: saving refuses an empty one, with the reason.
      return { provider: 'openai_compatible', base_url: 'http://127.0.0.1:8080/v1', model: '', mode: 'structured', timeout_ms: 120_000 };
  }
}

/** The settings of a student or teacher model profile. Keys are keychain references, picked by name. */
export function ModelEditor({
  idPrefix,
  role,
  value,
  onChange,
  providers,
  credentialNames,
}: {
  idPrefix: string;
  role: ModelRole;
  value: ModelRef;
  onChange: (ref: ModelRef) => void;
  providers?: ProviderStatus;
  credentialNames?: readonly string[];
}) {
  const id = (field: string) => fieldDomId(`models.${role}.${field}`, idPrefix);
  const installed = providers?.ollama.reachable ? providers.ollama.models.map((m) => m.name) : [];

  return (
    <div className="form-grid" data-testid={`model-editor-${role}`}>
      <SelectField id={id('provider')} label="Provider" value={value.provider} options={PROVIDER_OPTIONS} onChange={(p) => p !== value.provider && onChange(switchProvider(p, providers))} testId={`model-provider-${role}`} />
      {value.provider === 'script' && (
        <p className="form-note">Replies come from the replay script in the workflow file, in order. It is the demo’s stand-in for a model, clearly labelled “replay” in every run.</p>
      )}
      {value.provider === 'ollama' && (
        <>
          {installed.length > 0 ? (
            <SelectField
              id={id('model')}
              label="Model"
              value={value.model}
              options={[...new Set([...installed, value.model])].map((m) => ({ value: m, label: installed.includes(m) ? m : `${m} (not installed)` }))}
              onChange={(model) => onChange({ ...value, model })}
            />
          ) : (
            <TextField id={id('model')} label="Model" value={value.model} onChange={(model) => onChange({ ...value, model })} hint="Ollama is not reachable, so its models cannot be listed: type the model name." />
          )}
          <TextField
            id={id('host')}
            label="Ollama host"
            value={value.host ?? ''}
            placeholder={providers?.ollama.host ?? 'http://127.0.0.1:11434'}
            onChange={(host) => {
              const { host: _h, ...rest } = value;
              onChange(host.trim() ? { ...rest, host: host.trim() } : rest);
            }}
            hint="Empty: the host Steward uses for Ollama."
          />
          <SelectField id={id('mode')} label="Answer mode" value={value.mode} options={MODE_OPTIONS} onChange={(mode) => onChange({ ...value, mode })} />
        </>
      )}
      {value.provider === 'openai_compatible' && (
        <>
          <TextField id={id('base_url')} label="Base URL" value={value.base_url} onChange={(base_url) => onChange({ ...value, base_url })} hint="A cloud host must be allowed in Settings › Privacy before a run may use it." />
          <OpenAIModelField id={id('model')} role={role} value={value} onChange={onChange} />
          <FieldRow
            label="API key"
            htmlFor={id('api_key')}
            hint={
              <>
                A keychain reference: the key itself stays in the host’s keychain. <a href={routeHref({ name: 'settings' })}>Add a credential</a>
              </>
            }
          >
            <select
              id={id('api_key')}
              className="select"
              value={value.api_key ?? ''}
              onChange={(e) => {
                const { api_key: _k, ...rest } = value;
                onChange(e.target.value ? { ...rest, api_key: e.target.value as `keychain:${string}` } : rest);
              }}
            >
              <option value="">No key</option>
              {[...new Set([...(credentialNames ?? []), ...(value.api_key ? [value.api_key.slice('keychain:'.length)] : [])])].map((name) => (
                <option key={name} value={`keychain:${name}`}>
                  keychain:{name}
                  {credentialNames && !credentialNames.includes(name) ? ' (not in the keychain)' : ''}
                </option>
              ))}
            </select>
          </FieldRow>
          <SelectField id={id('mode')} label="Answer mode" value={value.mode} options={MODE_OPTIONS} onChange={(mode) => onChange({ ...value, mode })} />
        </>
      )}
      {value.provider !== 'script' && (
        <>
          <CheckField
            id={id('temperature-set')}
            label="Set a temperature"
            checked={value.temperature !== undefined}
            onChange={(on) => {
              const { temperature: _t, ...rest } = value;
              onChange(on ? { ...rest, temperature: 0.2 } : rest);
            }}
            hint="Off: the model’s own default."
          />
          {value.temperature !== undefined && (
            <NumberField id={id('temperature')} label="Temperature" value={value.temperature} min={0} max={2} step={0.1} onChange={(temperature) => onChange({ ...value, temperature })} />
          )}
          <NumberField
            id={id('timeout_ms')}
            label="Timeout (seconds)"
            value={Math.round(value.timeout_ms / 1000)}
            min={1}
            max={600}
            onChange={(s) => onChange({ ...value, timeout_ms: s * 1000 })}
          />
        </>
      )}
    </div>
  );
}

type OpenAIRef = Extract<ModelRef, { provider: 'openai_compatible' }>;

/**
 * The model of an OpenAI-compatible server: picked from the models it lists (GET /models, asked by
 * the host with the profile's key), typed when it lists none or cannot be reached — and then the
 * reason, with what to do, is right under the field.
 */
function OpenAIModelField({ id, role, value, onChange }: { id: string; role: ModelRole; value: OpenAIRef; onChange: (ref: ModelRef) => void }) {
  const { client } = useHost();
  const found = useOpenAIStatus(client, { base_url: value.base_url, ...(value.api_key ? { api_key: value.api_key } : {}) });
  const models = found.state === 'done' ? found.status.models.map((m) => m.id) : [];
  const line =
    found.state === 'checking'
      ? { tone: 'unknown', text: `Asking ${value.base_url} for its models…` }
      : found.state === 'failed'
        ? { tone: 'bad', text: `Could not ask the host: ${found.message}` }
        : found.state === 'done'
          ? found.status.error !== undefined
            ? { tone: found.status.reachable ? 'bad' : 'off', text: found.status.error }
            : { tone: 'ok', text: `${found.status.base_url} lists ${models.length} model${models.length === 1 ? '' : 's'}` }
          : undefined;
  const status = line && (
    <span className="model-list-status" data-testid={`openai-models-status-${role}`} data-health={line.tone}>
      <span className={`dot dot--${line.tone}`} aria-hidden="true" /> {line.text}{' '}
      <button type="button" className="link-button" onClick={found.refresh}>
        Check again
      </button>
    </span>
  );
  if (models.length > 0) {
    const options = [...(value.model === '' ? [{ value: '', label: 'Choose a model…' }] : []), ...[...new Set([...models, ...(value.model ? [value.model] : [])])].map((m) => ({ value: m, label: models.includes(m) ? m : `${m} (not listed by the server)` }))];
    return <SelectField id={id} label="Model" value={value.model} options={options} onChange={(model) => onChange({ ...value, model })} hint={status} testId={`openai-model-${role}`} />;
  }
  return <TextField id={id} label="Model" value={value.model} onChange={(model) => onChange({ ...value, model })} placeholder="e.g. gpt-4.1-mini" hint={status} testId={`openai-model-${role}`} />;
}
