import { Ollama } from 'ollama';
import { z } from 'zod';
import type { OllamaModelInfo, ProviderStatus } from '@shared/contracts/host-api';
import { DEFAULT_OLLAMA_HOST, displayHost, modelMissingMessage, networkCode, NetworkFailure, startOllamaCall, unreachableMessage, type FetchFn } from './ollama-call';

export type OllamaStatus = ProviderStatus['ollama'];

export interface OllamaStatusOptions {
  fetch?: FetchFn;
  /** Short on purpose: the app asks this while a person waits for a model selector. */
  timeoutMs?: number;
}

const DEFAULT_STATUS_TIMEOUT_MS = 1500;

// What we read from /api/version and /api/tags, checked on arrival (extra fields are ignored).
const VersionAnswer = z.object({ version: z.string() });
const TagsAnswer = z.object({
  models: z.array(
    z.object({
      name: z.string(),
      size: z.number().optional(),
      details: z.object({ family: z.string().optional(), parameter_size: z.string().optional() }).partial().nullish(),
    }),
  ),
});
const ShowAnswer = z.object({
  capabilities: z.array(z.string()).nullish(),
  details: z.object({ family: z.string().optional(), parameter_size: z.string().optional() }).partial().nullish(),
});

/** Is Ollama there, which version, which models. Never throws: every failure is in `error`. */
export async function getOllamaStatus(host: string, options: OllamaStatusOptions = {}): Promise<OllamaStatus> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_STATUS_TIMEOUT_MS;
  const call = startOllamaCall({ fetch: options.fetch, timeoutMs });
  const base = { host: displayHost(host) };
  try {
    const client = new Ollama({ host, fetch: call.fetch });
    const [versionRaw, tagsRaw] = await Promise.all([client.version(), client.list()]);
    const version = VersionAnswer.safeParse(versionRaw);
    const tags = TagsAnswer.safeParse(tagsRaw);
    if (!tags.success) {
      return { ...base, reachable: true, models: [], error: `Ollama at ${base.host} listed its models in an unexpected shape`, ...(version.success ? { version: version.data.version } : {}) };
    }
    return {
      ...base,
      reachable: true,
      ...(version.success ? { version: version.data.version } : {}),
      models: tags.data.models.map(toModelInfo),
    };
  } catch (err) {
    return { ...base, reachable: false, models: [], error: statusError(err, host, call.stopped(), timeoutMs) };
  } finally {
    call.dispose();
  }
}

export type OllamaModelCapabilities =
  | { ok: true; model: string; capabilities: string[]; family?: string; parameter_size?: string }
  | { ok: false; model: string; error: string };

/** What `ollama show` says a model can do (`tools`, `vision`, `thinking`…). Never throws. */
export async function getOllamaModelCapabilities(host: string, model: string, options: OllamaStatusOptions = {}): Promise<OllamaModelCapabilities> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_STATUS_TIMEOUT_MS;
  const call = startOllamaCall({ fetch: options.fetch, timeoutMs });
  try {
    const raw: unknown = await new Ollama({ host, fetch: call.fetch }).show({ model });
    const show = ShowAnswer.safeParse(raw);
    if (!show.success) return { ok: false, model, error: `Ollama described ${model} in an unexpected shape` };
    const details = show.data.details;
    return {
      ok: true,
      model,
      capabilities: show.data.capabilities ?? [],
      ...(details?.family ? { family: details.family } : {}),
      ...(details?.parameter_size ? { parameter_size: details.parameter_size } : {}),
    };
  } catch (err) {
    const status = err instanceof Error && err.name === 'ResponseError' ? (err as Error & { status_code?: unknown }).status_code : undefined;
    if (status === 404) return { ok: false, model, error: modelMissingMessage(model) };
    return { ok: false, model, error: statusError(err, host, call.stopped(), timeoutMs) };
  } finally {
    call.dispose();
  }
}

function toModelInfo(m: z.infer<typeof TagsAnswer>['models'][number]): OllamaModelInfo {
  return {
    name: m.name,
    ...(m.size !== undefined ? { size: m.size } : {}),
    ...(m.details?.family ? { family: m.details.family } : {}),
    ...(m.details?.parameter_size ? { parameter_size: m.details.parameter_size } : {}),
  };
}

function statusError(err: unknown, host: string, stopped: 'cancelled' | 'timeout' | undefined, timeoutMs: number): string {
  if (stopped === 'timeout') return `Ollama at ${displayHost(host)} did not answer within ${timeoutMs} ms — is it running? Start it with \`ollama serve\``;
  if (err instanceof NetworkFailure) {
    const code = networkCode(err.cause);
    return code ? `${unreachableMessage(host)} (${code})` : unreachableMessage(host);
  }
  if (networkCode(err) === 'ERR_INVALID_URL') return `"${host}" is not a valid Ollama address (expected e.g. ${DEFAULT_OLLAMA_HOST})`;
  const message = err instanceof Error ? err.message : String(err);
  return `Ollama at ${displayHost(host)} answered unexpectedly: ${message}`;
}
