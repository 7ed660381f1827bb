import { Ollama } from 'ollama';
import { z } from 'zod';
import type { OllamaModelInfo, ProviderStatus } from '@shared/contracts/host-api';
import { normalizeOllamaHost } from '@shared/contracts/model-url';
import { parseEndpoint, pinnedFetch } from './endpoint';
import { displayHost, invalidAddressMessage, modelMissingMessage, networkCode, NetworkFailure, startOllamaCall, unreachableMessage, type FetchFn } from './ollama-call';
import type { StopReason } from './http-call';

export type OllamaStatus = ProviderStatus['ollama'];

export interface OllamaStatusOptions {
  fetch?: FetchFn;
  /** Short on purpose: the app asks this while a person waits for a model selector. */
  timeoutMs?: number;
}

export interface OllamaStatusWithCapabilitiesOptions extends OllamaStatusOptions {
  /** Limit for each model's `show` (they run in parallel, after the model list). */
  showTimeoutMs?: number;
  /** Where capabilities are remembered between calls; defaults to one shared by the process. */
  capabilityCache?: CapabilityCache;
}

const DEFAULT_STATUS_TIMEOUT_MS = 1500;
const DEFAULT_SHOW_TIMEOUT_MS = 1000;
/** At most this many `show` requests at once: a long model list must not flood Ollama. */
const SHOW_CONCURRENCY = 6;

// What we read from /api/version and /api/tags, checked on arrival (extra fields are ignored).
const VersionAnswer = z.object({ version: z.string() });
const TagsAnswer = z.object({
  models: z.array(
    z.object({
      name: z.string(),
      size: z.number().optional(),
      digest: z.string().optional(),
      modified_at: z.string().optional(),
      details: z.object({ family: z.string().optional(), parameter_size: z.string().optional() }).partial().nullish(),
    }),
  ),
});
const ShowAnswer = z.object({
  capabilities: z.array(z.string()).nullish(),
  details: z.object({ family: z.string().optional(), parameter_size: z.string().optional() }).partial().nullish(),
});

/**
 * Is Ollama there, which version, which models, and what each model can do (`capabilities` from
 * `show`, absent where `show` failed). Never throws: every failure is in `error`.
 */
export async function getOllamaStatus(host: string, options: OllamaStatusWithCapabilitiesOptions = {}): Promise<OllamaStatus> {
  const base = { host: displayHost(host) };
  const parsed = parseEndpoint(normalizeOllamaHost(host));
  if (!parsed.ok) return { ...base, reachable: false, models: [], error: invalidAddressMessage(parsed.problem) };
  const timeoutMs = options.timeoutMs ?? DEFAULT_STATUS_TIMEOUT_MS;
  const call = startOllamaCall({ fetch: options.fetch, timeoutMs });
  try {
    const client = new Ollama({ host: parsed.endpoint.href, fetch: pinnedFetch(parsed.endpoint, call.fetch) });
    const [versionRaw, tagsRaw] = await Promise.all([client.version(), client.list()]);
    const version = VersionAnswer.safeParse(versionRaw);
    const tags = TagsAnswer.safeParse(tagsRaw);
    if (!tags.success) {
      return { ...base, reachable: true, models: [], error: `Ollama at ${base.host} listed its models in an unexpected shape`, ...(version.success ? { version: version.data.version } : {}) };
    }
    const models = await withCapabilities(host, tags.data.models, options);
    return { ...base, reachable: true, ...(version.success ? { version: version.data.version } : {}), models };
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
  const parsed = parseEndpoint(normalizeOllamaHost(host));
  if (!parsed.ok) return { ok: false, model, error: invalidAddressMessage(parsed.problem) };
  const timeoutMs = options.timeoutMs ?? DEFAULT_STATUS_TIMEOUT_MS;
  const call = startOllamaCall({ fetch: options.fetch, timeoutMs });
  try {
    const raw: unknown = await new Ollama({ host: parsed.endpoint.href, fetch: pinnedFetch(parsed.endpoint, call.fetch) }).show({ model });
    const show = ShowAnswer.safeParse(raw);
    if (!show.success) return { ok: false, model, error: `Ollama described ${model} in an unexpected shape` };
    // Before 0.6 Ollama did not report capabilities: that is "unknown", not "none".
    if (!show.data.capabilities) return { ok: false, model, error: `Ollama at ${displayHost(host)} does not report what ${model} can do — update Ollama` };
    const details = show.data.details;
    return {
      ok: true,
      model,
      capabilities: show.data.capabilities,
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

type TagsModel = z.infer<typeof TagsAnswer>['models'][number];

/**
 * Remembers what `show` said per (host, model, digest, modified time): a re-pulled model gets a
 * new digest and is asked again, an unchanged one never is, so polling the status stays cheap.
 */
export interface CapabilityCache {
  get(key: string): readonly string[] | undefined;
  set(key: string, capabilities: readonly string[]): void;
}

export function createCapabilityCache(maxEntries = 512): CapabilityCache {
  const entries = new Map<string, readonly string[]>();
  return {
    get: (key) => entries.get(key),
    set: (key, capabilities) => {
      entries.delete(key);
      entries.set(key, Object.freeze([...capabilities]));
      // Oldest first out: a long-running host that sees many pulls stays bounded.
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        entries.delete(oldest.value);
      }
    },
  };
}

const processCapabilityCache = createCapabilityCache();

async function withCapabilities(host: string, models: readonly TagsModel[], options: OllamaStatusWithCapabilitiesOptions): Promise<OllamaModelInfo[]> {
  const cache = options.capabilityCache ?? processCapabilityCache;
  const showOptions: OllamaStatusOptions = { fetch: options.fetch, timeoutMs: options.showTimeoutMs ?? DEFAULT_SHOW_TIMEOUT_MS };
  return mapLimited(models, SHOW_CONCURRENCY, async (m) => {
    const info = toModelInfo(m);
    // Without a digest or a time there is no way to tell a changed model: ask every time.
    const key = m.digest !== undefined || m.modified_at !== undefined ? [displayHost(host), m.name, m.digest ?? '', m.modified_at ?? ''].join('\u0000') : undefined;
    const cached = key === undefined ? undefined : cache.get(key);
    if (cached) return { ...info, capabilities: [...cached] };
    const shown = await getOllamaModelCapabilities(host, m.name, showOptions);
    if (!shown.ok) return info; // unknown, not failed: the selector shows no capabilities
    if (key !== undefined) cache.set(key, shown.capabilities);
    return { ...info, capabilities: shown.capabilities };
  });
}

/** Like Promise.all over `items.map(fn)`, with at most `limit` calls running at once; order kept. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function toModelInfo(m: TagsModel): OllamaModelInfo {
  return {
    name: m.name,
    ...(m.size !== undefined ? { size: m.size } : {}),
    ...(m.details?.family ? { family: m.details.family } : {}),
    ...(m.details?.parameter_size ? { parameter_size: m.details.parameter_size } : {}),
  };
}

function statusError(err: unknown, host: string, stopped: StopReason | undefined, timeoutMs: number): string {
  if (stopped === 'timeout') return `Ollama at ${displayHost(host)} did not answer within ${timeoutMs} ms — is it running? Start it with \`ollama serve\``;
  if (err instanceof NetworkFailure) {
    const code = networkCode(err.cause);
    return code ? `${unreachableMessage(host)} (${code})` : unreachableMessage(host);
  }
  if (networkCode(err) === 'ERR_INVALID_URL') return invalidAddressMessage('is not a URL');
  const message = err instanceof Error ? err.message : String(err);
  return `Ollama at ${displayHost(host)} answered unexpectedly: ${message}`;
}
