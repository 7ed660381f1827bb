import type { OpenAIStatus, ProviderStatus } from '@shared/contracts/host-api';
import { hostOf, ModelRef, modelLabel } from '@shared/contracts/model';
import { latestOfEach } from '../db/profiles';
import type { ProfileChoice, ProfileRow } from '../db/db';
import { profileOptions } from '../screens/workflow/ProfileSelect';

/**
 * What a model picker offers: replay, the host's Ollama models, and the user's model profiles of the
 * picker's role (a student profile is never offered as a teacher). One entry per model: a model a
 * profile runs is offered as that profile (the one the app made when the model was picked, or the
 * person's own), never again beside it as the raw model. Each option carries the ModelRef it yields,
 * and a profile's option the profile too, so a caller that keeps profiles can record which one.
 */
export interface ModelOption {
  value: string;
  label: string;
  ref: ModelRef;
  profile?: ProfileChoice;
  disabled?: boolean;
}

export interface ModelOptionGroup {
  /** Absent: options shown outside any optgroup. */
  label?: string;
  options: ModelOption[];
}

export const PROFILES_GROUP = 'Your model profiles';
const REPLAY = 'script';
const CURRENT = 'current';

const sameModel = (a: ModelRef, b: ModelRef): boolean => a.provider === b.provider && modelLabel(a) === modelLabel(b);
const modelKey = (ref: ModelRef): string => `${ref.provider}\u0000${modelLabel(ref)}`;

type OpenAIRef = Extract<ModelRef, { provider: 'openai_compatible' }>;

/** What the host said of one OpenAI-compatible server the user's profiles use (absent: not asked yet). */
export interface OpenAIServerOptions {
  /** The first profile's model at that server: its key and mode carry over to the models listed there. */
  template: OpenAIRef;
  status?: OpenAIStatus | { error: string };
}

/** The distinct OpenAI-compatible servers (address and key) the user's model profiles use, newest versions only. */
export function openAIServersOf(profiles: readonly ProfileRow[]): OpenAIRef[] {
  const seen = new Map<string, OpenAIRef>();
  for (const row of latestOfEach(profiles.filter((r) => r.origin !== 'builtin' && (r.kind === 'student' || r.kind === 'teacher')))) {
    if ((row.kind !== 'student' && row.kind !== 'teacher') || row.model.provider !== 'openai_compatible') continue;
    const key = `${row.model.base_url}\u0000${row.model.api_key ?? ''}`;
    if (!seen.has(key)) seen.set(key, row.model);
  }
  return [...seen.values()];
}

export function modelOptions(input: {
  role: 'student' | 'teacher';
  value: ModelRef;
  providers?: ProviderStatus;
  /** OpenAI-compatible servers and what each lists: offered like Ollama's models. */
  openai?: readonly OpenAIServerOptions[];
  /** Profile rows (any kinds, any versions): only model profiles the user made or imported are offered. */
  profiles: readonly ProfileRow[];
  /** The profile the caller has chosen, when it keeps one: selected over a same-model option. */
  profile?: ProfileChoice;
}): { groups: ModelOptionGroup[]; selected: string } {
  const { role, value, providers, profile } = input;
  const ollamaModels = providers?.ollama.reachable ? providers.ollama.models : [];
  const ollama: ModelOption[] = ollamaModels.map((m) => ({
    value: `ollama:${m.name}`,
    label: `${m.name}${m.parameter_size ? ` · ${m.parameter_size}` : ''}`,
    ref: ModelRef.parse({ provider: 'ollama', model: m.name }),
  }));
  const unavailable = (ref: ModelRef) => providers !== undefined && ref.provider === 'ollama' && !ollamaModels.some((m) => m.name === ref.model);
  const describe = (row: ProfileRow) => (row.kind === 'student' || row.kind === 'teacher' ? `${modelLabel(row.model)}${unavailable(row.model) ? ' (not available)' : ''}` : '');

  // Built-in model profiles are the replay option again; the user's own are the point, of this role only.
  const rows = input.profiles.filter((r) => r.origin !== 'builtin');
  const offered: ModelOption[] = profileOptions(rows, role, profile, describe).flatMap(({ row, label }) =>
    row.kind === 'student' || row.kind === 'teacher' ? [{ value: `profile:${row.id}@${row.version}`, label, ref: row.model, profile: { id: row.id, version: row.version } }] : [],
  );
  // One profile per model: the chosen one, else the first (by name).
  const isChosen = (o: ModelOption) => profile !== undefined && o.profile?.id === profile.id && o.profile.version === profile.version;
  const byModel = new Map<string, ModelOption>();
  for (const o of [...offered.filter(isChosen), ...offered.filter((o) => !isChosen(o))]) if (!byModel.has(modelKey(o.ref))) byModel.set(modelKey(o.ref), o);
  const mine = offered.filter((o) => byModel.get(modelKey(o.ref)) === o);
  const covered = (o: ModelOption) => byModel.has(modelKey(o.ref));

  // Each server's listed models, as Ollama's are; one that cannot be asked says why, as a disabled line.
  const servers: ModelOptionGroup[] = (input.openai ?? []).map(({ template, status }) => {
    const where = hostOf(template.base_url);
    const label = `${where} (OpenAI-compatible)`;
    if (status === undefined) return { label, options: [{ value: `openai-wait:${template.base_url}`, label: 'asking the server for its models…', ref: template, disabled: true }] };
    if ('error' in status && status.error !== undefined) return { label, options: [{ value: `openai-error:${template.base_url}`, label: status.error, ref: template, disabled: true }] };
    const models = 'models' in status ? status.models : [];
    return {
      label,
      options: models.map((m) => {
        const ref: OpenAIRef = { ...template, model: m.id };
        return { value: `openai:${modelLabel(ref)}|${template.api_key ?? ''}`, label: m.id, ref };
      }),
    };
  });
  const listed = servers.flatMap((g) => g.options.filter((o) => !o.disabled));

  // A raw model a profile already offers is that profile's entry, not a second one.
  const replay: ModelOption = { value: REPLAY, label: 'replay (scripted)', ref: { provider: 'script' } };
  const top: ModelOption[] = covered(replay) ? [] : [replay];
  const raw = ollama.filter((o) => !covered(o));
  for (const g of servers) g.options = g.options.filter((o) => o.disabled || !covered(o));
  const all = [...top, ...raw, ...mine, ...listed.filter((o) => !covered(o))];
  const chosen = mine.find(isChosen);
  let selected = chosen?.value ?? all.find((o) => sameModel(o.ref, value))?.value;
  if (selected === undefined) {
    // The workflow's model is offered by nobody (Ollama down, a file's own model): shown, still selectable.
    top.push({ value: CURRENT, label: `${modelLabel(value)}${value.provider === 'ollama' ? ' (not available)' : ''}`, ref: value });
    selected = CURRENT;
  }

  const groups: ModelOptionGroup[] = top.length > 0 ? [{ options: top }] : [];
  if (raw.length > 0) groups.push({ label: 'Ollama', options: raw });
  if (mine.length > 0) groups.push({ label: PROFILES_GROUP, options: mine });
  groups.push(...servers.filter((g) => g.options.length > 0));
  return { groups, selected };
}

/** What choosing an option yields: its model, and its profile when it is one. */
export function choiceOf(groups: readonly ModelOptionGroup[], value: string): { ref: ModelRef; profile?: ProfileChoice } | undefined {
  const option = groups.flatMap((g) => g.options).find((o) => o.value === value);
  return option && { ref: option.ref, ...(option.profile ? { profile: option.profile } : {}) };
}
