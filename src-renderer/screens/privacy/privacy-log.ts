import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { DATA_CATEGORIES, DATA_CATEGORY_LABELS, type DataCategory } from '@shared/contracts/model-call';
import type { DataExposure } from '@shared/policy/privacy';

export type ModelCall = RunEventOf<'model.called'>;

/** One model's place (provider, model, this machine or a host) and every call that went there. */
export interface PrivacyGroup {
  key: string;
  model: string;
  provider: ModelCall['provider'];
  local: boolean;
  host?: string;
  calls: ModelCall[];
  bytes: number;
  /** Every category any of its calls carried, in the canonical order. */
  data: DataCategory[];
}

/** What the Privacy tab lists, a row at a time (so the list can be virtualized): a group's head, then its calls. */
export type PrivacyRow = { kind: 'group'; group: PrivacyGroup } | { kind: 'call'; call: ModelCall; group: PrivacyGroup };

export interface PrivacyLog {
  groups: PrivacyGroup[];
  rows: PrivacyRow[];
  calls: number;
  /** Calls that left this machine. */
  remote: number;
  /** A trace from before calls were logged: what run.started said each role is shown. */
  declared: DataExposure[];
}

/**
 * The run's privacy log from its `model.called` events: grouped by where the data went, models on
 * another machine first (what a person checks first), then in the order they were first called.
 */
export function privacyLog(events: readonly RunEvent[]): PrivacyLog {
  const byKey = new Map<string, PrivacyGroup & { seen: Set<DataCategory> }>();
  let declared: DataExposure[] = [];
  for (const event of events) {
    if ((event.type === 'run.started' || event.type === 'agent.started') && declared.length === 0) declared = event.exposure;
    if (event.type !== 'model.called') continue;
    const key = `${event.local ? 'local' : (event.host ?? '?')}|${event.provider}|${event.model}`;
    let group = byKey.get(key);
    if (!group) {
      group = { key, model: event.model, provider: event.provider, local: event.local, ...(event.host !== undefined ? { host: event.host } : {}), calls: [], bytes: 0, data: [], seen: new Set() };
      byKey.set(key, group);
    }
    group.calls.push(event);
    group.bytes += event.bytes;
    for (const category of event.data) group.seen.add(category);
  }
  const groups = [...byKey.values()]
    .map(({ seen, ...group }) => ({ ...group, data: DATA_CATEGORIES.filter((c) => seen.has(c)) }))
    .sort((a, b) => Number(a.local) - Number(b.local));
  const rows = groups.flatMap((group): PrivacyRow[] => [{ kind: 'group', group }, ...group.calls.map((call) => ({ kind: 'call' as const, call, group }))]);
  const calls = groups.reduce((n, g) => n + g.calls.length, 0);
  const remote = groups.filter((g) => !g.local).reduce((n, g) => n + g.calls.length, 0);
  return { groups, rows, calls, remote, declared };
}

export const CALLER_LABELS = { student: 'Student', teacher: 'Teacher', committee: 'SCS committee', monitor: 'SCS monitor', supervisor: 'Workflow supervisor', judge: 'Pattern judge' } satisfies Record<ModelCall['caller'], string>;
export const PURPOSE_LABELS = {
  propose: 'proposal',
  shadow: 'shadow proposal',
  review: 'review',
  plan: 'phase plan',
  gate: 'evidence gate',
  other: 'call',
} satisfies Record<ModelCall['purpose'], string>;

export function dataLabels(data: readonly DataCategory[]): string {
  return data.map((c) => DATA_CATEGORY_LABELS[c]).join(', ');
}

/** Where a group's data went, in words. */
export function placeLabel(group: Pick<PrivacyGroup, 'local' | 'host' | 'provider'>): string {
  if (group.provider === 'script') return 'this machine (replay script)';
  return group.local ? 'this machine' : `${group.host ?? 'another machine'}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
