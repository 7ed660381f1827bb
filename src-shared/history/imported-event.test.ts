import { describe, expect, it } from 'vitest';
import { RunEvent, eventId } from '../contracts/events';
import { maskRawKeys } from '../policy/secrets';
import { MASK } from '../util/mask';
import { STORED_TEXT_LIMIT_BYTES, trimText } from '../util/trim-text';
import { sameStoredEvent, storedImportedEvent } from './imported-event';

/** Issue 26: an imported event is stored as the engine stores what it records, trimmed and masked. */

const KEY = `sk-proj-${'Z9y8X7w6V5'.repeat(4)}`;
const finished = (output: string): RunEvent =>
  RunEvent.parse({ type: 'run.finished', id: eventId('imported-0001', 1), run_id: 'imported-0001', seq: 1, ts: '2026-01-05T09:00:00.000Z', status: 'completed', rounds: 0, event_count: 2, output });
const stored = (event: RunEvent) => {
  const out = storedImportedEvent(event);
  if (!out.ok) throw new Error(out.problem);
  return out;
};

describe('raw keys in imported text', () => {
  it('masks keys of known formats wherever they are, also in JSON text after an escape, and a private key whole', () => {
    expect(maskRawKeys(`key=${KEY} next`)).toBe(`key=${MASK} next`);
    expect(maskRawKeys(JSON.stringify({ note: `line\n${KEY}` }))).toBe(JSON.stringify({ note: `line\n${MASK}` }));
    expect(maskRawKeys('a -----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY----- b')).toBe(`a ${MASK} b`);
    expect(maskRawKeys(`ghp_${'a1'.repeat(12)}`)).toBe(MASK);
  });

  it('keeps what only looks random (hashes, ids, base64) and words that contain "sk-"', () => {
    for (const text of ['sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', 'hash-read-0001', 'risk-gated-profile-default-v1', 'dGhpcyBpcyBub3QgYSBrZXkgYXQgYWxs']) {
      expect(maskRawKeys(text)).toBe(text);
    }
  });
});

describe('an imported event as stored', () => {
  it('is trimmed as the engine trims model text, and a trimmed text is kept as it is when it comes back', () => {
    const long = 'é'.repeat(STORED_TEXT_LIMIT_BYTES);
    const first = stored(finished(long));
    expect(first).toMatchObject({ trimmed: true, masked: false, event: { output: trimText(long).text, trimmed: [{ path: 'output', original_bytes: 2 * STORED_TEXT_LIMIT_BYTES }] } });
    const again = stored(first.event);
    expect(again).toMatchObject({ trimmed: false, masked: false });
    expect(again.event).toBe(first.event);
  });

  it('masks a key in any string, and the same event with or without the key is the same event as stored', () => {
    const event = finished(`the key is ${KEY}`);
    const out = stored(event);
    expect(out).toMatchObject({ masked: true, event: { output: `the key is ${MASK}` } });
    expect(JSON.stringify(out.event)).not.toContain(KEY);
    expect(sameStoredEvent(event, out.event)).toBe(true);
    expect(sameStoredEvent(event, finished('the key is another'))).toBe(false);
  });

  it('leaves an event without long text or keys untouched (the very same object)', () => {
    const event = finished('done');
    expect(stored(event)).toEqual({ ok: true, event, trimmed: false, masked: false });
    expect(stored(event).event).toBe(event);
  });
});
