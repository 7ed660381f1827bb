/**
 * JSON.parse accepts any nesting, but everything after it (JSON.stringify, structuredClone, Zod,
 * our own walkers) recurses and dies with "Maximum call stack size exceeded". Input that crosses a
 * boundary is bounded right after parsing; the walkers carry a looser bound as a second line.
 */
export const MAX_JSON_DEPTH = 64;
/** Walkers see inputs wrapped in events and records, a few levels deeper than the entry bound. */
export const MAX_WALK_DEPTH = 2 * MAX_JSON_DEPTH;

export class JsonTooDeepError extends Error {
  constructor(
    readonly limit: number,
    what = 'JSON',
  ) {
    super(`${what} nested deeper than ${limit} levels`);
    this.name = 'JsonTooDeepError';
  }
}

/** Whether arrays/objects nest deeper than `limit` (iterative: safe on any depth, and on cycles). */
export function jsonDepthExceeds(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

export function assertJsonDepth(value: unknown, what = 'JSON', limit = MAX_JSON_DEPTH): void {
  if (jsonDepthExceeds(value, limit)) throw new JsonTooDeepError(limit, what);
}

/** JSON.parse, then the depth bound: throws SyntaxError or JsonTooDeepError. */
export function parseJsonBounded(text: string, what = 'JSON'): unknown {
  const value: unknown = JSON.parse(text);
  assertJsonDepth(value, what);
  return value;
}

/** For recursive walkers: call with the current depth before descending. */
export function checkWalkDepth(depth: number): void {
  if (depth > MAX_WALK_DEPTH) throw new JsonTooDeepError(MAX_WALK_DEPTH);
}
