/**
 * Counts in the sentences Steward says (the app's screens, the CLI's lines): one way everywhere.
 * Numbers are grouped by thousands as the product's English is ("10,000 runs"), whatever the
 * machine's locale, so what a test or a person reads does not depend on where it runs.
 */

/** 10000 → "10,000". */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** 1 → "1 run", 10000 → "10,000 runs"; `many` for a plural that is not the word and an s. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}
