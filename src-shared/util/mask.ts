import { checkWalkDepth } from './json-depth';
import { setOwn } from './set-own';

export const MASK = '••••••';

/**
 * Mask the named argument keys (at any depth) so traces never carry sensitive values. `found`
 * receives every string the masked values held, so they can be masked by value elsewhere.
 */
export function maskArguments(args: Record<string, unknown>, sensitive: readonly string[], found?: (value: string) => void): Record<string, unknown> {
  if (sensitive.length === 0) return args;
  const names = new Set(sensitive);
  return maskValue(args, names, found, 0) as Record<string, unknown>;
}

function maskValue(value: unknown, names: Set<string>, found: ((value: string) => void) | undefined, depth: number): unknown {
  checkWalkDepth(depth);
  if (Array.isArray(value)) return value.map((v) => maskValue(v, names, found, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (names.has(k)) {
        if (found) stringsIn(v, found, depth + 1);
        setOwn(out, k, MASK);
      } else {
        setOwn(out, k, maskValue(v, names, found, depth + 1));
      }
    }
    return out;
  }
  return value;
}

function stringsIn(value: unknown, found: (value: string) => void, depth: number): void {
  checkWalkDepth(depth);
  // Strings only: masking a number's digits everywhere would mangle counts, dates and ids.
  if (typeof value === 'string') found(value);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) stringsIn(v, found, depth + 1);
}

/**
 * Arguments a person edited from their masked form (the page shows a call as the trace has it): a
 * value left exactly MASK keeps the value it stands for, which they never saw and so did not mean
 * to replace; everything they changed is theirs.
 */
export function unmaskEdited(edited: Record<string, unknown>, original: Record<string, unknown>, depth = 0): Record<string, unknown> {
  checkWalkDepth(depth);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(edited)) setOwn(out, key, unmaskValue(item, Object.hasOwn(original, key) ? original[key] : undefined, depth + 1));
  return out;
}

function unmaskValue(edited: unknown, original: unknown, depth: number): unknown {
  checkWalkDepth(depth);
  if (edited === MASK) return original === undefined ? edited : original;
  if (Array.isArray(edited)) return edited.map((item: unknown, i) => unmaskValue(item, Array.isArray(original) ? original[i] : undefined, depth + 1));
  if (edited !== null && typeof edited === 'object') {
    const from: Record<string, unknown> = original !== null && typeof original === 'object' && !Array.isArray(original) ? { ...original } : {};
    return unmaskEdited(edited as Record<string, unknown>, from, depth + 1);
  }
  return edited;
}
