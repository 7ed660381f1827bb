/**
 * What a person typed over a stored value that is written as they type (each valid change stored
 * at once). The stored value comes back through a live query a moment after each write, so an
 * echo of an earlier keystroke's write may arrive after later keystrokes: that echo is the
 * person's own and must not replace what they typed since (it would drop keystrokes). Only a
 * stored value nobody typed here (another tab, an import) replaces the typing.
 */
export interface TypedOverStored<T> {
  /** The stored keys this typing stands on: the one it started from, then each write it sent. */
  readonly bases: readonly string[];
  readonly value: T;
}

/** What the field shows: the typing while the stored value is one it stands on, else the stored value. */
export function shownValue<T>(typed: TypedOverStored<T> | undefined, storedKey: string, stored: T): T {
  return typed && typed.bases.includes(storedKey) ? typed.value : stored;
}

/**
 * The typing after a change. `writtenKey` is the stored key the change's write will produce, or
 * undefined when the change is not written (it does not validate yet). Echoes come back in the
 * order of their writes, so the keys before the stored one are done with: the list holds only the
 * writes still on their way, however many keystrokes that is.
 */
export function typeOver<T>(typed: TypedOverStored<T> | undefined, storedKey: string, next: T, writtenKey: string | undefined): TypedOverStored<T> {
  const at = typed ? typed.bases.indexOf(storedKey) : -1;
  const bases = typed && at >= 0 ? typed.bases.slice(at) : [storedKey];
  return { bases: writtenKey === undefined ? bases : [...bases, writtenKey], value: next };
}
