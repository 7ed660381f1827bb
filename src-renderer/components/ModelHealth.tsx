import { credentialNameOf } from '@shared/contracts/credentials';
import type { ProviderStatus } from '@shared/contracts/host-api';
import { hostOf, modelLabel, type ModelRef } from '@shared/contracts/model';
import { capabilityWarnings } from '@shared/policy/model-capabilities';
import { checkProviderAllowed, localityOf, type PrivacyPolicy } from '@shared/policy/privacy';

type Health = { tone: 'ok' | 'off' | 'unknown' | 'bad'; text: string };

/** Ollama treats a bare name as `:latest`. */
const ollamaName = (name: string) => (/:[^/]+$/.test(name) ? name.toLowerCase() : `${name.toLowerCase()}:latest`);

function healthOf(model: ModelRef, providers: ProviderStatus | undefined, credentialNames: readonly string[] | undefined, privacy: PrivacyPolicy | undefined): { health: Health; capabilities?: string[] } {
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
      const tone = key !== undefined && credentialNames !== undefined && !credentialNames.includes(credentialNameOf(key)) ? 'bad' : 'unknown';
      return { health: { tone, text: `${where.local ? 'Local server' : 'Cloud'} ${hostOf(model.base_url)} · ${keyText} · reachability checked when a run starts` } };
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
  const { health, capabilities } = healthOf(model, providers, credentialNames, privacy);
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
      {warnings.map((w) => (
        <p key={w} className="model-health__warning" role="note">
          ⚠ {w}
        </p>
      ))}
    </div>
  );
}
