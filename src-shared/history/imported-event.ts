import { RunEvent } from '../contracts/events';
import { holdsKnownKey, maskRawKeys } from '../policy/secrets';
import { canonicalJson } from '../util/canonical-json';
import { checkWalkDepth } from '../util/json-depth';
import { boundModelText } from './model-text';
import { setOwn } from '../util/set-own';

/** An imported event as the history stores it, and what that changed; or why it cannot be stored. */
export type StoredImport = { ok: true; event: RunEvent; trimmed: boolean; masked: boolean } | { ok: false; problem: string };

/**
 * An imported event made as the engine makes the events it records (issue 26), decided per case:
 * - Model text over 16 KiB is trimmed with the engine's marker and listed in `trimmed`, not
 *   refused: a trace from a version that did not trim holds nothing wrong, only more, and the
 *   engine would have stored exactly this. A text trimmed before is kept as it is, so a recorded
 *   event comes back unchanged (and preparing twice changes nothing).
 * - A key of a known format (`sk-proj-…`, `ghp_…`, a private key) is masked as a recorded event
 *   shows a sensitive value, not refused: the run is still worth keeping, and refusing would leave
 *   a person to edit JSON by hand. Masking only adds protection; nothing else in the event changes.
 * - A key in the event's identity (its id or run id) is refused: masking it would make another
 *   event, or merge two runs.
 */
export function storedImportedEvent(event: RunEvent): StoredImport {
  const bounded = boundModelText(event, true);
  const trimmed = bounded !== event;
  if (!holdsKnownKey(JSON.stringify(bounded))) return { ok: true, event: bounded, trimmed, masked: false };
  if (holdsKnownKey(event.id) || holdsKnownKey(event.run_id)) {
    return { ok: false, problem: 'its event id or run id looks like a raw key (an API key or token), which the history never stores: this is not an event Steward wrote' };
  }
  const parsed = RunEvent.safeParse(maskStrings(bounded, 0));
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') ?? '';
    return { ok: false, problem: `it holds what looks like a raw key (an API key or token) in its field "${field}", where a masked value is not valid: remove the key and import again` };
  }
  return { ok: true, event: parsed.data, trimmed, masked: true };
}

/** Every string and key with its raw keys masked. */
function maskStrings(value: unknown, depth: number): unknown {
  checkWalkDepth(depth);
  if (typeof value === 'string') return maskRawKeys(value);
  if (Array.isArray(value)) return value.map((item) => maskStrings(item, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) setOwn(out, maskRawKeys(key), maskStrings(item, depth + 1));
  return out;
}

/** The event as an import would store it (itself when it cannot be): what "the same event" is compared in. */
export function storedForm(event: RunEvent): RunEvent {
  const stored = storedImportedEvent(event);
  return stored.ok ? stored.event : event;
}

/**
 * Whether two events are the same event as the history would store them: key order and an
 * optional field's default do not count (both were parsed), trimming and masking do not either.
 */
export function sameStoredEvent(a: RunEvent, b: RunEvent): boolean {
  return a === b || canonicalJson(storedForm(a)) === canonicalJson(storedForm(b));
}
