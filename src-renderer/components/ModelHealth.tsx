import { credentialNameOf } from '@shared/contracts/credentials';
import type { ProviderStatus } from '@shared/contracts/host-api';
import { hostOf, modelLabel, type ModelRef } from '@shared/contracts/model';
import { capabilityWarnings } from '@shared/policy/model-capabilities';
import { checkProviderAllowed, localityOf, type PrivacyPolicy } from '@shared/policy/privacy';
import { useState } from 'react';
import type { OpenAIStatus } from '@shared/contracts/host-api';
import { useHost } from '../app/HostProvider';
import { useOpenAIStatus, type OpenAIStatusState } from './use-openai-status';

type Health = { tone: 'ok' | 'off' | 'unknown' | 'bad'; text: string };

/** Ollama treats a bare name as `:latest`. */
const ollamaName = (name: string) => (/:[^/]+$/.test(name) ? name.toLowerCase() : `${name.toLowerCase()}:latest`);

function healthOf(
  model: ModelRef,
  providers: ProviderStatus | undefined,
  credentialNames: readonly string[] | undefined,
  privacy: PrivacyPolicy | undefined,
  openai: OpenAIStatusState,
): { health: Health; capabilities?: string[] } {
  switch (model.provider) {
    case 'script':
      return { health: { tone: 'ok', text: 'Replay · always available (scripted, no model server)' } };
    case 'ollama': {
      const status = providers?.ollama;
      if (!status) return { health: { tone: 'unknown', text: 'Ollama status unknown (not connected to the host)' } };
      const sameHost = hostOf(model.host ?? status.host) === hostOf(status.host);
      if (!sameHost) return { health: { tone: 'unknown', text: `Ollama at ${hostOf(model.host ?? '')}: not checked (Steward watches ${hostOf(status.host)})` } };
      if (!status.reachable) return { health: { tone: 'off', text: `Ollama not reachable at ${hostOf(status.host)}: start it with ollama serve` } };
      const info = status.models.find((m) => ollamaName(m.name) === ollamaName(model.model));
      if (!info) return { health: { tone: 'bad', text: `Not installed in Ollama: ollama pull ${model.model}` } };
      return { health: { tone: 'ok', text: `Ollama ${status.version ?? ''} · installed${info.parameter_size ? ` · ${info.parameter_size}` : ''}` }, capabilities: info.capabilities };
    }
    case 'openai_compatible': {
      const where = localityOf(model);
      const allowed = checkProviderAllowed(model, 'teacher', privacy ?? { allowed_hosts: [] });
      const key = model.api_key;
      const keyText = key === undefined ? 'no API key' : credentialNames === undefined ? `key ${key}` : credentialNames.includes(credentialNameOf(key)) ? `key ${key} ✓` : `key ${key} missing from the keychain`;
      if (!allowed.ok) return { health: { tone: 'bad', text: `${hostOf(model.base_url)} is not allowed by the privacy policy (Settings › Privacy)` } };
      const keyMissing = key !== undefined && credentialNames !== undefined && !credentialNames.includes(credentialNameOf(key));
      const server = `${where.local ? 'Local server' : 'Cloud'} ${hostOf(model.base_url)}`;
      if (keyMissing) return { health: { tone: 'bad', text: `${server} · ${keyText}: add it in Settings › Credentials` } };
      // What the host found at the address (as Ollama's status): reachable, the key taken, the model listed.
      switch (openai.state) {
        case 'idle':
        case 'checking':
          return { health: { tone: 'unknown', text: `${server} · ${keyText} · checking…` } };
        case 'failed':
          return { health: { tone: 'unknown', text: `${server} · ${keyText} · not checked: ${openai.message}` } };
        case 'done': {
          const { status } = openai;
          if (status.error !== undefined) return { health: { tone: status.reachable ? 'bad' : 'off', text: status.error } };
          const listed = status.models.some((m) => m.id === model.model);
          if (!listed && status.models.length > 0) return { health: { tone: 'bad', text: `${server} does not list ${model.model} (it lists ${status.models.length}: ${status.models.slice(0, 4).map((m) => m.id).join(', ')}${status.models.length > 4 ? '…' : ''}) — pick one of them in the profile` } };
          return { health: { tone: 'ok', text: `${server} · reachable · ${listed ? 'model listed' : 'lists no models'} · ${keyText}` } };
        }
      }
    }
  }
}

/** What a model selector shows under the choice: model id, provider health, capabilities and warnings. */
export function ModelHealth({
  model,
  providers,
  credentialNames,
  privacy,
  testId,
}: {
  model: ModelRef;
  providers?: ProviderStatus;
  credentialNames?: readonly string[];
  privacy?: PrivacyPolicy;
  testId?: string;
}) {
  const { client } = useHost();
  const allowed = model.provider === 'openai_compatible' && checkProviderAllowed(model, 'teacher', privacy ?? { allowed_hosts: [] }).ok;
  const openai = useOpenAIStatus(client, model.provider === 'openai_compatible' && allowed ? { base_url: model.base_url, ...(model.api_key ? { api_key: model.api_key } : {}) } : undefined);
  const { health, capabilities } = healthOf(model, providers, credentialNames, privacy, openai);
  const warnings = capabilityWarnings(model, capabilities);
  return (
    <div className="model-health" data-testid={testId} data-health={health.tone}>
      <div className="model-health__line">
        <code className="model-health__id">{modelLabel(model)}</code>
        {model.provider !== 'script' && <span className="tag">{model.mode === 'tools' ? 'tool calls' : 'structured'}</span>}
      </div>
      <div className="model-health__line">
        <span className={`dot dot--${health.tone === 'ok' ? 'ok' : health.tone === 'bad' ? 'bad' : health.tone === 'off' ? 'off' : 'unknown'}`} aria-hidden="true" />
        <span className="model-health__text">{health.text}</span>
      </div>
      {capabilities && capabilities.length > 0 && (
        <div className="model-health__line" aria-label="Capabilities">
          {capabilities.map((c) => (
            <span key={c} className="tag tag--cap">
              {c}
            </span>
          ))}
        </div>
      )}
      {model.provider === 'openai_compatible' && openai.state === 'done' && openai.status.reachable && <ProbeLine key={`${modelLabel(model)}:${model.mode}`} model={model} />}
      {warnings.map((w) => (
        <p key={w} className="model-health__warning" role="note">
          ⚠ {w}
        </p>
      ))}
    </div>
  );
}

/**
 * "Test model": one tiny call in the model's answer mode, made by the host (issue 10's probe):
 * proves the key, the model id and the mode before a run depends on them.
 */
function ProbeLine({ model }: { model: Extract<ModelRef, { provider: 'openai_compatible' }> }) {
  const { client } = useHost();
  const [probe, setProbe] = useState<{ running: boolean; result?: NonNullable<OpenAIStatus['probe']>; error?: string }>({ running: false });
  const run = async () => {
    setProbe({ running: true });
    try {
      const status = await client.request('providers.openai_status', { base_url: model.base_url, ...(model.api_key ? { api_key: model.api_key } : {}), probe: { model: model.model, mode: model.mode } });
      setProbe({ running: false, ...(status.probe ? { result: status.probe } : { error: status.error ?? 'the server did not answer the check' }) });
    } catch (err) {
      setProbe({ running: false, error: err instanceof Error ? err.message : String(err) });
    }
  };
  const tone = probe.result ? (probe.result.ok ? 'ok' : 'bad') : probe.error ? 'bad' : 'unknown';
  return (
    <div className="model-health__line" data-testid="model-probe" data-probe={tone}>
      <button type="button" className="link-button" onClick={() => void run()} disabled={probe.running || model.model === ''}>
        {probe.running ? 'Testing…' : 'Test model'}
      </button>
      {(probe.result || probe.error) && <span className={`model-health__text${tone === 'bad' ? ' error' : ''}`}>{probe.result?.message ?? probe.error}</span>}
    </div>
  );
}
