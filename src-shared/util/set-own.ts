/**
 * Sets a key that a person's (or a model's, or a server's) data named as an own property of `target`,
 * `__proto__` included: a plain `target[key] = value` with that key calls Object.prototype's setter and
 * gives `target` a prototype instead, so the key vanishes from the copy and its value answers for keys
 * that are not there (issue 27). Every walker that copies parsed JSON key by key goes through here.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
