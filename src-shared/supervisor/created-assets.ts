import type { EffectClass } from '../contracts/tool-effect';

/**
 * What one invocation's attempt created (seed 004: "retry only when the failed attempt created
 * nothing"), read off the tool calls it made — never guessed from text. A call counts by its tool's
 * effective effect class: a `read` created nothing; a write (reversible or not) or a tool of unknown
 * effect made or changed something, named by what it wrote when the arguments say so (a file's
 * path, a directory, entities a server made), else by the server and tool. A call that failed or
 * reported an error may still have had its effect (unknown means unsafe): it is listed, marked so.
 * An `external_communication` call sent something rather than made something here; its retry is
 * refused by retry-safety (retry-safety.ts), not by this list.
 */

/** The parts of one tool call this reads (a `tool.executed` event's execution). */
export interface ToolCallMade {
  server: string;
  tool: string;
  arguments: Readonly<Record<string, unknown>>;
  ok: boolean;
  is_error: boolean;
}

/** The escalation holds at most this many (contracts.ts), each at most this long. */
export const MAX_CREATED_ASSETS = 100;
export const MAX_ASSET_CHARS = 500;

const CREATES = {
  read: false,
  reversible_write: true,
  irreversible_write: true,
  external_communication: false,
  unknown: true,
} satisfies Record<EffectClass, boolean>;

/** Argument names that say where a write landed, in order of preference (a move's destination before its source). */
const TARGET_KEYS = ['destination', 'path', 'file_path', 'filePath', 'file', 'filename', 'uri'] as const;

const own = (args: Readonly<Record<string, unknown>>, key: string): unknown => (Object.hasOwn(args, key) ? args[key] : undefined);

const nameOf = (item: unknown, key: string): string | undefined => {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const value: unknown = Object.hasOwn(item, key) ? (item as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' && value.length > 0 ? value : undefined;
};

/** What the call wrote, in the words of its arguments: paths, entity names, relations; empty when they do not say. */
export function targetsOf(args: Readonly<Record<string, unknown>>): string[] {
  for (const key of TARGET_KEYS) {
    const value = own(args, key);
    if (typeof value === 'string' && value.length > 0) return [value];
  }
  const entities = own(args, 'entities');
  if (Array.isArray(entities)) {
    const names = entities.map((e) => nameOf(e, 'name')).filter((n): n is string => n !== undefined);
    if (names.length > 0) return names.map((n) => `entity ${n}`);
  }
  const relations = own(args, 'relations');
  if (Array.isArray(relations)) {
    const named = relations.map((r) => [nameOf(r, 'from'), nameOf(r, 'relationType'), nameOf(r, 'to')] as const).filter((r) => r[0] !== undefined && r[2] !== undefined);
    if (named.length > 0) return named.map(([from, type, to]) => `relation ${from ?? ''} ${type ?? '→'} ${to ?? ''}`);
  }
  return [];
}

const cut = (text: string): string => (text.length <= MAX_ASSET_CHARS ? text : `${text.slice(0, MAX_ASSET_CHARS - 1)}…`);

/**
 * The assets an attempt's tool calls created, in call order, each once: `fs/write_file: /notes/a.md`,
 * or `fs/write_file: /notes/a.md (may have been made: the call failed)`. `effectOf` is the run's
 * effect registry (the workflow's own setting, else Steward's shipped metadata; undefined = unknown).
 */
export function createdAssets(calls: readonly ToolCallMade[], effectOf: (server: string, tool: string) => EffectClass | undefined): string[] {
  const out: string[] = [];
  for (const call of calls) {
    const effect = effectOf(call.server, call.tool) ?? 'unknown';
    if (!CREATES[effect]) continue;
    const failedNote = call.ok && !call.is_error ? '' : ' (may have been made: the call failed)';
    const targets = targetsOf(call.arguments);
    const named = targets.length > 0 ? targets.map((t) => `${call.server}/${call.tool}: ${t}${failedNote}`) : [`${call.server}/${call.tool} (${effect === 'unknown' ? 'a tool of unknown effect' : 'a write'})${failedNote}`];
    for (const asset of named.map(cut)) if (!out.includes(asset)) out.push(asset);
    if (out.length >= MAX_CREATED_ASSETS) return out.slice(0, MAX_CREATED_ASSETS);
  }
  return out;
}

/** The first asset, and how many more: one line for a refusal or the CLI's ⛨ line; undefined when nothing was created. */
export function createdText(assets: readonly string[]): string | undefined {
  const [first] = assets;
  if (first === undefined) return undefined;
  const shown = first.length <= 200 ? first : `${first.slice(0, 199)}…`;
  return assets.length > 1 ? `${shown} and ${assets.length - 1} more` : shown;
}
