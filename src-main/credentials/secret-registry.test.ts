import { describe, expect, it } from 'vitest';
import { MASK } from '@shared/util/mask';
import { MIN_MASKABLE_LENGTH, SecretRegistry, encodingsOf, maskLabel } from './secret-registry';

const PLANTED = 'sk-planted-9f3Kq2Lr7Tz1Vb8Nx4';
const LABEL = maskLabel('openai');

/** None of the forms the registry promises to catch survives in the text. */
function assertNoLeak(serialised: string, value: string): void {
  for (const form of encodingsOf(value)) expect(serialised, `leaked form ${form}`).not.toContain(form);
}

describe('SecretRegistry', () => {
  it('with nothing registered, mask returns the very same value (the cheap common case)', () => {
    const registry = new SecretRegistry();
    const event = { type: 'round.completed', record: { text: 'hello' } };
    expect(registry.mask(event)).toBe(event);
    expect(registry.maskText('hello')).toBe('hello');
    expect(registry.contains('hello')).toBe(false);
    expect(registry.size).toBe(0);
  });

  it('masks a planted secret everywhere in a nested event: strings, arrays, keys, JSON inside strings', () => {
    const registry = new SecretRegistry();
    expect(registry.register('openai', PLANTED)).toBe(true);
    const event = {
      type: 'tool.executed',
      seq: 7,
      ok: true,
      nothing: null,
      arguments: { headers: { Authorization: `Bearer ${PLANTED}` }, list: ['a', PLANTED, [`x${PLANTED}y`]] },
      result: { content: [{ type: 'text', text: JSON.stringify({ env: { OPENAI_API_KEY: PLANTED } }) }] },
      [PLANTED]: 'a key that is the secret',
      prompt: [{ role: 'tool', content: `the server said: ${JSON.stringify(JSON.stringify({ key: PLANTED }))}` }],
    };
    const masked = registry.mask(event);
    const text = JSON.stringify(masked);
    assertNoLeak(text, PLANTED);
    expect(masked.arguments.headers.Authorization).toBe(`Bearer ${LABEL}`);
    expect(masked.arguments.list).toEqual(['a', LABEL, [`x${LABEL}y`]]);
    expect(JSON.parse(masked.result.content[0]?.text ?? '')).toEqual({ env: { OPENAI_API_KEY: LABEL } });
    expect(Object.keys(masked)).toContain(LABEL);
    expect(masked.seq).toBe(7);
    expect(masked.ok).toBe(true);
    expect(masked.nothing).toBeNull();
    expect(masked.type).toBe('tool.executed');
    // A copy: the original still holds the value for the host's own use.
    expect(event.arguments.list[1]).toBe(PLANTED);
  });

  it('masks a secret holding quotes, backslashes and control characters as JSON writes it, once and twice escaped', () => {
    const registry = new SecretRegistry();
    const tricky = 'pa"ss\\word\n\tend-42';
    registry.register('db', tricky);
    const once = JSON.stringify({ password: tricky });
    const twice = JSON.stringify({ payload: once });
    for (const text of [once, twice, `log line: ${twice}`]) {
      const masked = registry.maskText(text);
      expect(masked).not.toContain(tricky);
      expect(masked).not.toContain(JSON.stringify(tricky).slice(1, -1));
      expect(masked).toContain(maskLabel('db'));
    }
    expect(JSON.parse(registry.maskText(once))).toEqual({ password: maskLabel('db') });
  });

  it('masks non-ASCII secrets also when a serialiser writes them as \\uXXXX escapes', () => {
    const registry = new SecretRegistry();
    const secret = 'clé-secrète-✓-2024';
    registry.register('fr', secret);
    const pythonStyle = JSON.stringify({ k: secret }).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(pythonStyle).not.toContain(secret);
    expect(registry.maskText(pythonStyle)).toBe(`{"k":"${maskLabel('fr')}"}`);
  });

  it('masks the URL-encoded form and base64 at every byte alignment (standard and URL-safe)', () => {
    const registry = new SecretRegistry();
    const secret = 'tok/en+with?odd&chars=1';
    registry.register('api', secret);
    expect(registry.maskText(`https://x.test/?key=${encodeURIComponent(secret)}`)).toBe(`https://x.test/?key=${maskLabel('api')}`);
    for (const prefix of ['', 'u:', 'us:', 'use:']) {
      const basic = Buffer.from(`${prefix}${secret}`).toString('base64');
      const urlSafe = Buffer.from(`${prefix}${secret}`).toString('base64url');
      for (const encoded of [basic, urlSafe]) {
        expect(registry.contains(encoded), `${prefix} ${encoded}`).toBe(true);
        expect(registry.maskText(`Basic ${encoded}`)).toContain(maskLabel('api'));
      }
    }
  });

  it('masks the longest secret first, so a secret that contains another is masked whole under its own name', () => {
    const registry = new SecretRegistry();
    registry.register('short', 'tok-1234');
    registry.register('long', 'tok-1234-extended-part');
    expect(registry.maskText('a tok-1234-extended-part b tok-1234 c')).toBe(`a ${maskLabel('long')} b ${maskLabel('short')} c`);
    // Registration order does not matter.
    const reversed = new SecretRegistry();
    reversed.register('long', 'tok-1234-extended-part');
    reversed.register('short', 'tok-1234');
    expect(reversed.maskText('tok-1234-extended-part')).toBe(maskLabel('long'));
  });

  it('is idempotent: masking masked text changes nothing, even for a secret that appears in the label', () => {
    const registry = new SecretRegistry();
    registry.register('keychain', 'keychain');
    registry.register('openai', PLANTED);
    const once = registry.mask({ a: `keychain ${PLANTED}` });
    expect(once).toEqual({ a: `${maskLabel('keychain')} ${LABEL}` });
    expect(registry.mask(once)).toEqual(once);
  });

  it(`does not register values shorter than ${MIN_MASKABLE_LENGTH} characters, which would mask ordinary text`, () => {
    const registry = new SecretRegistry();
    expect(registry.register('pin', 'abc')).toBe(false);
    expect(registry.has('abc')).toBe(false);
    expect(registry.size).toBe(0);
    const text = { type: 'abc', note: 'abcabc' };
    expect(registry.mask(text)).toBe(text);
  });

  it('tracks registered values: has, size and a value registered twice', () => {
    const registry = new SecretRegistry();
    registry.register('one', 'value-one');
    registry.register('two', 'value-two');
    registry.register('alias', 'value-one');
    expect(registry.size).toBe(2);
    expect(registry.has('value-one')).toBe(true);
    expect(registry.has('value-three')).toBe(false);
    // The first name stays the label of a value.
    expect(registry.maskText('value-one')).toBe(maskLabel('one'));
    expect(registry.contains('xx value-two xx')).toBe(true);
    expect(registry.contains('nothing here at all')).toBe(false);
  });

  it('refuses a name that is not a credential name (the label must stay a reference)', () => {
    expect(() => new SecretRegistry().register('not a name', 'value-1234')).toThrow(/not a valid credential name/);
  });

  it('leaves text without secrets untouched, including regex metacharacters in secrets', () => {
    const registry = new SecretRegistry();
    registry.register('re', 'a.b*c(d)[e]$');
    expect(registry.maskText('aXbbbcdde nothing')).toBe('aXbbbcdde nothing');
    expect(registry.maskText('x a.b*c(d)[e]$ y')).toBe(`x ${maskLabel('re')} y`);
  });

  it('leaves non-JSON objects as they are and keeps arrays and nulls in shape', () => {
    const registry = new SecretRegistry();
    registry.register('openai', PLANTED);
    const date = new Date(0);
    const masked = registry.mask({ when: date, list: [null, 1, PLANTED], nested: [[PLANTED]] });
    expect(masked.when).toBe(date);
    expect(masked.list).toEqual([null, 1, LABEL]);
    expect(masked.nested).toEqual([[LABEL]]);
  });

  it('a sensitive argument value, once registered, is masked as the plain mask in every form, credentials keep their label', () => {
    const registry = new SecretRegistry();
    registry.register('openai', PLANTED);
    expect(registry.registerSensitive('alice.private@example.com')).toBe(true);
    expect(registry.registerSensitive('bob')).toBe(false);
    const text = JSON.stringify({ note: `to alice.private@example.com, key ${PLANTED}`, inner: JSON.stringify({ to: 'alice.private@example.com' }) });
    const masked = registry.maskText(text);
    assertNoLeak(masked, 'alice.private@example.com');
    expect(masked).toContain(`to ${MASK}, key ${LABEL}`);
    expect(registry.mask({ a: 'x alice.private@example.com' })).toEqual({ a: `x ${MASK}` });
  });

  it('masks a 100k-deep value with a clear error, not a stack overflow', () => {
    const registry = new SecretRegistry();
    registry.register('openai', PLANTED);
    expect(() => registry.mask(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)))).toThrow(/JSON nested deeper than \d+ levels/);
  });
});
