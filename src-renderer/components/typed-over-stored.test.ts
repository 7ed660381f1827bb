import { describe, expect, it } from 'vitest';
import { shownValue, typeOver, type TypedOverStored } from './typed-over-stored';

describe('typing over a value stored as it is typed', () => {
  it('an echo of an earlier keystroke’s write does not drop the keystrokes typed since', () => {
    // Stored "", the person types "m" then "ma"; each is written; the echo of "m" arrives after "ma" was typed.
    let typed: TypedOverStored<string> | undefined;
    typed = typeOver(typed, '""', 'm', '"m"');
    typed = typeOver(typed, '""', 'ma', '"ma"');
    expect(shownValue(typed, '"m"', 'm')).toBe('ma');
    // The next keystroke lands on what is shown, not on the echo.
    typed = typeOver(typed, '"m"', 'mai', '"mai"');
    expect(shownValue(typed, '"ma"', 'ma')).toBe('mai');
    expect(shownValue(typed, '"mai"', 'mai')).toBe('mai');
  });

  it('a value stored from elsewhere (another tab) replaces the typing', () => {
    let typed: TypedOverStored<string> | undefined;
    typed = typeOver(typed, '""', 'ma', '"ma"');
    expect(shownValue(typed, '"other"', 'other')).toBe('other');
    // Typing again starts from that value.
    typed = typeOver(typed, '"other"', 'otherx', '"otherx"');
    expect(typed.bases).toEqual(['"other"', '"otherx"']);
  });

  it('a change that is not written (it does not validate) stays on screen over the stored value it was typed on', () => {
    const typed = typeOver(undefined, '"a"', 'a b', undefined);
    expect(typed.bases).toEqual(['"a"']);
    expect(shownValue(typed, '"a"', 'a')).toBe('a b');
  });

  it('keeps every write still on its way, however far its echoes lag, and forgets those that came back', () => {
    let typed: TypedOverStored<string> | undefined;
    // 100 keystrokes typed before the first echo: every one is still the person's own.
    for (let i = 0; i < 100; i += 1) typed = typeOver(typed, '""', `v${i}`, `"v${i}"`);
    expect(shownValue(typed, '"v0"', 'v0')).toBe('v99');
    // A keystroke after the echo of v49: the writes before it are done with.
    typed = typeOver(typed, '"v49"', 'v100', '"v100"');
    expect(typed.bases[0]).toBe('"v49"');
    expect(typed.bases).toHaveLength(52); // v49 … v99, then v100
    expect(shownValue(typed, '"v99"', 'v99')).toBe('v100');
  });
});
