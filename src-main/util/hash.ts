import { createHash } from 'node:crypto';
import { canonicalJson } from '@shared/util/canonical-json';

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Hash of a value's canonical JSON: key order does not change it. */
export function hashJson(value: unknown): string {
  return sha256(canonicalJson(value));
}
