import type { ProviderStatus } from '@shared/contracts/host-api';
import { ModelRef, modelLabel } from '@shared/contracts/model';
import type { ProfileChoice, ProfileRow } from '../db/db';
import { profileOptions } from '../screens/workflow/ProfileSelect';

/**
 * What a model picker offers: replay, the host's Ollama models, and the user's model profiles
 * (student and teacher, the role's own kind first). Each option carries the ModelRef it yields, and
 * a profile's option the profile too, so a caller that keeps profiles can record which one.
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

export function modelOptions(input: {
  role: 'student' | 'teacher';
  value: ModelRef;
  providers?: ProviderStatus;
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

  // Built-in model profiles are the replay option again; the user's own are the point.
  const rows = input.profiles.filter((r) => r.origin !== 'builtin');
  const kinds = role === 'student' ? (['student', 'teacher'] as const) : (['teacher', 'student'] as const);
  const mine: ModelOption[] = kinds.flatMap((kind) =>
    profileOptions(rows, kind, profile, describe).flatMap(({ row, label }) =>
      row.kind === 'student' || row.kind === 'teacher' ? [{ value: `profile:${row.id}@${row.version}`, label, ref: row.model, profile: { id: row.id, version: row.version } }] : [],
    ),
  );

  const top: ModelOption[] = [{ value: REPLAY, label: 'replay (scripted)', ref: { provider: 'script' } }];
  const all = [...top, ...ollama, ...mine];
  const chosen = profile && mine.find((o) => o.profile?.id === profile.id && o.profile.version === profile.version);
  let selected =
    chosen?.value ??
    (value.provider === 'script' ? REPLAY : undefined) ??
    (value.provider === 'ollama' ? ollama.find((o) => sameModel(o.ref, value))?.value : undefined) ??
    all.find((o) => sameModel(o.ref, value))?.value;
  if (selected === undefined) {
    // The workflow's model is offered by nobody (Ollama down, a file's own model): shown, still selectable.
    top.push({ value: CURRENT, label: `${modelLabel(value)}${value.provider === 'ollama' ? ' (not available)' : ''}`, ref: value });
    selected = CURRENT;
  }

  const groups: ModelOptionGroup[] = [{ options: top }];
  if (ollama.length > 0) groups.push({ label: 'Ollama', options: ollama });
  if (mine.length > 0) groups.push({ label: PROFILES_GROUP, options: mine });
  return { groups, selected };
}

/** What choosing an option yields: its model, and its profile when it is one. */
export function choiceOf(groups: readonly ModelOptionGroup[], value: string): { ref: ModelRef; profile?: ProfileChoice } | undefined {
  const option = groups.flatMap((g) => g.options).find((o) => o.value === value);
  return option && { ref: option.ref, ...(option.profile ? { profile: option.profile } : {}) };
}
