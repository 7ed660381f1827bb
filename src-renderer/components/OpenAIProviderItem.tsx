import { hostOf } from '@shared/contracts/model';
import type { OpenAIServerOptions } from './model-options';

/** A provider's first models by name (none: nothing). */
export function ProviderModels({ names }: { names: readonly string[] }) {
  if (names.length === 0) return null;
  return (
    <ul className="provider__models">
      {names.slice(0, 8).map((name) => (
        <li key={name}>
          <code>{name}</code>
        </li>
      ))}
    </ul>
  );
}

/**
 * One OpenAI-compatible server a profile uses, in the sidebar's "Model providers": reachable or not,
 * and what to do when not (the host's message). Its key stays a keychain reference the page never shows.
 */
export function OpenAIProviderItem({ server }: { server: OpenAIServerOptions }) {
  const { template, status } = server;
  const name = `${hostOf(template.base_url)} (OpenAI-compatible)`;
  // The host could not be asked (no status) or it said what went wrong at the address.
  const asked = status !== undefined && 'reachable' in status ? status : undefined;
  const tone = asked === undefined ? 'unknown' : asked.reachable && asked.error === undefined ? 'ok' : 'off';
  const models = asked?.error === undefined ? (asked?.models ?? []) : [];
  return (
    <li className="provider" data-testid="openai-status" data-reachable={asked === undefined ? 'unknown' : String(asked.reachable)} data-base-url={template.base_url}>
      <span className={`dot dot--${tone}`} aria-hidden="true" />
      <span>
        <span className="provider__name">{name}</span>
        {status === undefined && <span className="provider__detail">checking…</span>}
        {status !== undefined && asked === undefined && (
          <>
            <span className="provider__detail">not checked</span>
            <span className="provider__hint">{status.error}</span>
          </>
        )}
        {asked !== undefined && asked.error !== undefined && (
          <>
            <span className="provider__detail">{asked.reachable ? 'reachable, but not usable' : 'not reachable'}</span>
            <span className="provider__hint">{asked.error}</span>
          </>
        )}
        {asked !== undefined && asked.error === undefined && (
          <>
            <span className="provider__detail">{`reachable · ${models.length === 0 ? 'lists no models' : `${models.length} model${models.length === 1 ? '' : 's'}`}`}</span>
            <ProviderModels names={models.map((m) => m.id)} />
          </>
        )}
      </span>
    </li>
  );
}
