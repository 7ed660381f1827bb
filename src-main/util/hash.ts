import { hash } from 'node:crypto';
import { canonicalJson } from '@shared/util/canonical-json';

export function sha256(text: string): string {
  // One-shot: no Hash object a call (a round hashes its idempotency key; issue 26).
  return hash('sha256', text, 'hex');
}

/** Hash of a value's canonical JSON: key order does not change it. */
export function hashJson(value: unknown): string {
  return sha256(canonicalJson(value));
}
