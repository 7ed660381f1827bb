import { checkWalkDepth } from './json-depth';
import { setOwn } from './set-own';

/**
 * Deterministic JSON: object keys sorted at every depth. Hashes and idempotency keys are taken over
 * this, so `{a,b}` and `{b,a}` are the same arguments.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, 0));
}

function sortKeys(value: unknown, depth: number): unknown {
  checkWalkDepth(depth);
  if (Array.isArray(value)) return value.map((v) => sortKeys(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) setOwn(out, key, sortKeys((value as Record<string, unknown>)[key], depth + 1));
    return out;
  }
  return value;
}
