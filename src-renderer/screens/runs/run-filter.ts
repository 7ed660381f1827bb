import { z } from 'zod';
import { RunStatus } from '@shared/contracts/events';

export const RunSort = z.enum(['newest', 'oldest']);
export type RunSort = z.infer<typeof RunSort>;

/** What the runs list is narrowed to. Days are the date inputs' local calendar days (YYYY-MM-DD), both inclusive. */
export const RunFilter = z
  .object({
    status: RunStatus.optional(),
    workflowId: z.string().min(1).optional(),
    supervision: z.enum(['supervised', 'unsupervised']).optional(),
    /** Runs whose student or teacher used this kind of provider (read from the models column). */
    provider: z.enum(['replay', 'ollama', 'remote']).optional(),
    /** Where a run came from: an imported trace file (it never ran here), or this machine. */
    origin: z.enum(['imported', 'here']).optional(),
    /** Runs paused for a person (status `waiting`). */
    waitingForYou: z.boolean().default(false),
    fromDay: z.iso.date().optional(),
    toDay: z.iso.date().optional(),
    /** Case-insensitive words, each the start of a word of the task, output, message, workflow name or models (db/search-words.ts). */
    text: z.string().default(''),
    sort: RunSort.default('newest'),
  })
  .strict();
export type RunFilter = z.infer<typeof RunFilter>;

export const NO_FILTER: RunFilter = RunFilter.parse({});

/** True when anything narrows the list (the sort alone does not). */
export function isFiltered(f: RunFilter): boolean {
  return f.status !== undefined || f.workflowId !== undefined || f.supervision !== undefined || f.provider !== undefined || f.origin !== undefined || f.waitingForYou || f.fromDay !== undefined || f.toDay !== undefined || f.text.trim() !== '';
}

export type RunOrigin = NonNullable<RunFilter['origin']>;
export const ORIGIN_LABELS: Record<RunOrigin, string> = { here: 'Ran here', imported: 'Imported' };

export type ProviderKind = NonNullable<RunFilter['provider']>;
export const PROVIDER_LABELS: Record<ProviderKind, string> = { replay: 'Replay', ollama: 'Ollama', remote: 'OpenAI-compatible' };

/**
 * The provider behind a models-column label as modelLabel writes it (replay, ollama:MODEL, HOST:MODEL); none for
 * the placeholders of a workflow run whose nodes differ or have not started ("per node", "—", "?").
 */
export function providerOfLabel(label: string): ProviderKind | undefined {
  if (label === 'replay') return 'replay';
  if (label.startsWith('ollama:')) return 'ollama';
  return label.includes(':') ? 'remote' : undefined;
}
