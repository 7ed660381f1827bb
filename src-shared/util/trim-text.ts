import { setOwn } from './set-own';
/**
 * Bounds what a model said before it is stored (events, traces, the app's database, `--json`,
 * learning examples). The provider already stops reading past `max_reply_bytes`; a reply under that
 * limit may still be large, and it is copied into many records (candidate, parsed decision, round
 * record, delivery, result): each stored copy keeps the first STORED_TEXT_LIMIT_BYTES of every
 * text, a marker saying how large it was, and the record lists the original sizes by path.
 *
 * Behaviour chosen for a long but valid reply (a `complete` with a huge `output`): the run still
 * completes and the agent used the full text within the run (history, tools); every stored or
 * printed copy, the run's output included, is the trimmed one.
 */

export const STORED_TEXT_LIMIT_BYTES = 16 * 1024;

/** One text that was trimmed: where it was in the record, and how many UTF-8 bytes it had. */
export interface TrimmedText {
  path: string;
  original_bytes: number;
}

/** UTF-8 size of a string (no TextEncoder here: shared code has neither DOM nor Node types). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

export function trimmedMarker(originalBytes: number): string {
  return `\n… [trimmed for storage: ${originalBytes} bytes in full]`;
}

/** Whether trimText keeps the text whole (at most `limit` UTF-8 bytes); most texts are decided by their length alone. */
export function storedWhole(text: string, limit = STORED_TEXT_LIMIT_BYTES): boolean {
  if (text.length > limit) return false;
  return text.length * 3 <= limit || utf8Bytes(text) <= limit;
}

/** The text as stored: whole when within `limit` bytes, else its longest prefix that fits and the marker. */
export function trimText(text: string, limit = STORED_TEXT_LIMIT_BYTES): { text: string; original_bytes: number; trimmed: boolean } {
  // Every UTF-16 unit is at most 3 UTF-8 bytes: short texts need no counting.
  if (text.length * 3 <= limit) return { text, original_bytes: utf8Bytes(text), trimmed: false };
  const original = utf8Bytes(text);
  if (original <= limit) return { text, original_bytes: original, trimmed: false };
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    const pair = c >= 0xd800 && c <= 0xdbff && end + 1 < text.length && isLowSurrogate(text.charCodeAt(end + 1));
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > limit) break;
    bytes += size;
    end += pair ? 2 : 1;
  }
  return { text: `${text.slice(0, end)}${trimmedMarker(original)}`, original_bytes: original, trimmed: true };
}

/** The end trimText gives a trimmed text; its prefix is the kept part. */
const MARKER_START = '\n… [trimmed for storage: ';
const MARKER_REST = /^\d+ bytes in full\]$/;

/**
 * Whether the text is already as trimText stores a long one: at most `limit` bytes kept, then the
 * marker. Storing such a text again (a recorded run exported and imported) must keep it as it is:
 * trimming it again would cut the marker and name the trimmed size as the original.
 */
export function isTrimmedText(text: string, limit = STORED_TEXT_LIMIT_BYTES): boolean {
  const at = text.lastIndexOf(MARKER_START);
  return at >= 0 && MARKER_REST.test(text.slice(at + MARKER_START.length)) && utf8Bytes(text.slice(0, at)) <= limit;
}

interface Bounding {
  limit: number;
  /** Leave texts that are already trimmed (isTrimmedText) as they are. */
  keepTrimmed: boolean;
  trimmed: TrimmedText[];
}

/**
 * Trims every string under the given paths of `value` (dot-separated keys, `*` for every array
 * element), copying only what changes. Returns the bounded value and what was trimmed, by the
 * concrete path (e.g. `rounds.0.candidate.reply.text`). `keepTrimmed`: a text trimmed before
 * (an imported event's) is kept as it is, so bounding an already bounded value changes nothing.
 */
export function boundTexts<T>(value: T, paths: readonly string[], limit = STORED_TEXT_LIMIT_BYTES, keepTrimmed = false): { value: T; trimmed: TrimmedText[] } {
  const bounding: Bounding = { limit, keepTrimmed, trimmed: [] };
  let out: unknown = value;
  for (const path of paths) out = along(out, keysOf(path), 0, [], bounding);
  return { value: out as T, trimmed: bounding.trimmed };
}

/** Each path's keys, split once: the callers' paths are a few constants, bounded for every event a run records. */
const splitPaths = new Map<string, readonly string[]>();
function keysOf(path: string): readonly string[] {
  let keys = splitPaths.get(path);
  if (keys === undefined) {
    keys = path.split('.');
    if (splitPaths.size < 1000) splitPaths.set(path, keys);
  }
  return keys;
}

/**
 * `at` is the path walked so far, one stack for the whole walk (pushed going down, popped coming
 * back): it is joined only for a text that is trimmed, so a walk that trims nothing builds no path.
 */
function along(node: unknown, keys: readonly string[], i: number, at: string[], b: Bounding): unknown {
  if (i === keys.length) return everything(node, at, b);
  const key = keys[i] as string;
  if (key === '*') {
    if (!Array.isArray(node)) return node;
    return copyIfChanged(
      node,
      node.map((item, n) => {
        at.push(String(n));
        const next = along(item, keys, i + 1, at, b);
        at.pop();
        return next;
      }),
    );
  }
  if (!isRecord(node) || !(key in node)) return node;
  at.push(key);
  const child = along(node[key], keys, i + 1, at, b);
  at.pop();
  return child === node[key] ? node : { ...node, [key]: child };
}

/** A text no longer than this many UTF-16 units is within the limit whatever it holds (at most 3 UTF-8 bytes each). */
const surelyWithin = (value: unknown, b: Bounding): boolean => typeof value === 'string' && value.length * 3 <= b.limit;

/** Nothing under it can need trimming without a look: a short text, a number, a boolean, null. */
const nothingToLookAt = (value: unknown, b: Bounding): boolean => surelyWithin(value, b) || value === null || (typeof value !== 'object' && typeof value !== 'string');

/**
 * Every string under `node`, trimmed. Most of what a round stores is short text and small objects:
 * those are left as they are without counting their bytes, building their path or copying them
 * (issue 26: this walk ran over every event a run records). Copies only what changes.
 */
function everything(node: unknown, at: string[], b: Bounding): unknown {
  if (typeof node === 'string') {
    if (surelyWithin(node, b)) return node;
    if (b.keepTrimmed && isTrimmedText(node, b.limit)) return node;
    const bounded = trimText(node, b.limit);
    if (!bounded.trimmed) return node;
    b.trimmed.push({ path: at.join('.'), original_bytes: bounded.original_bytes });
    return bounded.text;
  }
  if (Array.isArray(node)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < node.length; i += 1) {
      const item: unknown = node[i];
      if (nothingToLookAt(item, b)) continue;
      at.push(String(i));
      const next = everything(item, at, b);
      at.pop();
      if (next === item) continue;
      copy ??= node.slice();
      copy[i] = next;
    }
    return copy ?? node;
  }
  if (!isRecord(node)) return node;
  // Own enumerable keys, in Object.entries' order, without an entry array for each.
  const keys = Object.keys(node);
  let changes: Map<string, unknown> | undefined;
  for (const k of keys) {
    const v = node[k];
    if (nothingToLookAt(v, b)) continue;
    at.push(k);
    const next = everything(v, at, b);
    at.pop();
    if (next !== v) (changes ??= new Map()).set(k, next);
  }
  if (!changes) return node;
  const copy: Record<string, unknown> = {};
  for (const k of keys) setOwn(copy, k, changes.has(k) ? changes.get(k) : node[k]);
  return copy;
}

function copyIfChanged(before: unknown[], after: unknown[]): unknown[] {
  return after.some((item, i) => item !== before[i]) ? after : before;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
