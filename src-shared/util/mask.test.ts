import { describe, expect, it } from 'vitest';
import { MASK, maskArguments, unmaskEdited } from './mask';

describe('masking sensitive arguments', () => {
  it('a named key is masked wherever it appears', () => {
    const args = { to: 'boss@example.com', body: 'hi', cc: [{ to: 'x@example.com', note: 'n' }], meta: { auth: { to: 'y' } } };
    expect(maskArguments(args, ['to'])).toEqual({ to: MASK, body: 'hi', cc: [{ to: MASK, note: 'n' }], meta: { auth: { to: MASK } } });
  });

  it('a whole object under a sensitive key is masked, not walked', () => {
    expect(maskArguments({ credentials: { user: 'u', password: 'p' } }, ['credentials'])).toEqual({ credentials: MASK });
  });

  it('values are masked whatever their type', () => {
    expect(maskArguments({ pin: 1234, token: null, flag: false }, ['pin', 'token', 'flag'])).toEqual({ pin: MASK, token: MASK, flag: MASK });
  });

  it('the original arguments are left untouched', () => {
    const args = { token: 'secret', nested: { token: 'secret' } };
    maskArguments(args, ['token']);
    expect(args).toEqual({ token: 'secret', nested: { token: 'secret' } });
  });

  it('with nothing sensitive the arguments pass as they are', () => {
    const args = { a: 1 };
    expect(maskArguments(args, [])).toBe(args);
    expect(maskArguments({ a: 1, b: [1, { c: 2 }] }, ['zzz'])).toEqual({ a: 1, b: [1, { c: 2 }] });
  });

  it('the masked value never contains the secret', () => {
    const masked = maskArguments({ api_key: 'sk-live-123456', list: ['sk-live-123456'] }, ['api_key']);
    expect(JSON.stringify(masked.api_key)).not.toContain('sk-live');
  });
});

describe('arguments edited from their masked form', () => {
  it('a value left masked keeps what it stands for; what the person changed is theirs', () => {
    const original = { path: 'card.txt', content: 'PIN 4821', auth: { pin: '4821', user: 'ada' }, list: ['a', 'b'] };
    const edited = { path: 'other.txt', content: MASK, auth: { pin: MASK, user: 'bob' }, list: [MASK, 'c'], extra: MASK };
    expect(unmaskEdited(edited, original)).toEqual({ path: 'other.txt', content: 'PIN 4821', auth: { pin: '4821', user: 'bob' }, list: ['a', 'c'], extra: MASK });
  });
});
