import { CredentialName } from '@shared/contracts/credentials';
import { checkWalkDepth } from '@shared/util/json-depth';
import { MASK } from '@shared/util/mask';
import { MIN_VALUE_LENGTH } from '@shared/util/sensitive-text';
import { setOwn } from '@shared/util/set-own';

/**
 * Values shorter than this are not masked: masking "abc" everywhere would mangle ordinary text
 * (event types, file names, prose). `resolveCredentials` refuses such a credential instead, so a
 * secret the registry cannot mask never enters a run.
 */
export const MIN_MASKABLE_LENGTH = 4;

/** What a masked secret looks like in traces, events and prompts: its reference, never its value. */
export function maskLabel(name: string): string {
  return `••••(keychain:${name})`;
}

/** A label already in the text is kept as is, so masking twice gives the same text. */
const LABEL_SOURCE = '••••\\(keychain:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\\)';
/** Base64 fragments shorter than this would match ordinary text by chance. */
const MIN_BASE64_NEEDLE = 8;

/**
 * The secret values resolved for one run, and the one place that masks them. Every event, tool
 * result, prompt and message the host emits goes through `mask`, so a value can only leave the host
 * as `••••(keychain:NAME)`.
 *
 * Besides the plain value it masks the forms a value takes on its way through serialisers: JSON
 * string escaping (once and twice, also with non-ASCII as `\uXXXX` as Python writes it),
 * URL-encoding, and base64 (standard and URL-safe, at any byte alignment). All forms are matched in
 * one pass, longest first, so a secret that contains another is masked whole under its own name.
 */
export class SecretRegistry {
  /** value → credential name (the first name registered for a value wins). */
  private readonly names = new Map<string, string>();
  /** needle (a value or one of its encodings) → label. */
  private readonly needles = new Map<string, string>();
  private pattern: RegExp | undefined;
  private dirty = false;
  private shortest = Number.POSITIVE_INFINITY;

  /** Registers a value under its credential name. False (and not masked) when shorter than MIN_MASKABLE_LENGTH. */
  register(name: string, value: string): boolean {
    if (!CredentialName.safeParse(name).success) throw new Error('SecretRegistry.register: not a valid credential name');
    if (value.length < MIN_MASKABLE_LENGTH) return false;
    if (this.names.has(value)) return true;
    this.names.set(value, name);
    this.addNeedles(value, maskLabel(name));
    return true;
  }

  /**
   * Registers a sensitive tool-argument value (seen in any candidate of the run): from then on it
   * is masked as MASK wherever it appears, in any of the encoded forms. Short values are not (see
   * MIN_VALUE_LENGTH); they stay masked only where their field is located.
   */
  registerSensitive(value: string): boolean {
    if (value.length < MIN_VALUE_LENGTH || value === MASK) return false;
    this.addNeedles(value, MASK);
    return true;
  }

  private addNeedles(value: string, label: string): void {
    for (const needle of encodingsOf(value)) {
      if (!this.needles.has(needle)) {
        this.needles.set(needle, label);
        this.dirty = true;
      }
    }
  }

  has(value: string): boolean {
    return this.names.has(value);
  }

  /** How many distinct values are registered. */
  get size(): number {
    return this.names.size;
  }

  /** Changes whenever what `maskText` masks changes (it only grows): a text masked at one version stays masked right until the next. */
  get version(): number {
    return this.needles.size;
  }

  /** Whether the text carries any registered value (in any of the masked forms). */
  contains(text: string): boolean {
    const pattern = this.compiled();
    if (pattern === undefined || text.length < this.shortest) return false;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      if (this.needles.has(m[0])) return true;
    }
    return false;
  }

  /** The text with every registered value replaced by its label. */
  maskText(text: string): string {
    const pattern = this.compiled();
    if (pattern === undefined || text.length < this.shortest) return text;
    return text.replace(pattern, (match) => this.needles.get(match) ?? match);
  }

  /**
   * A copy of a JSON-like value (strings, arrays, plain objects; keys included) with every
   * registered value masked. With nothing registered it returns the input itself: the common case
   * costs one check. Other objects (Date, class instances) are returned as they are.
   */
  mask<T>(value: T): T {
    if (this.needles.size === 0) return value;
    return this.walk(value, 0) as T;
  }

  private walk(value: unknown, depth: number): unknown {
    checkWalkDepth(depth);
    if (typeof value === 'string') return this.maskText(value);
    if (Array.isArray(value)) return value.map((item: unknown) => this.walk(item, depth + 1));
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) setOwn(out, this.maskText(key), this.walk(item, depth + 1));
      return out;
    }
    return value;
  }

  private compiled(): RegExp | undefined {
    if (this.needles.size === 0) return undefined;
    if (this.dirty || this.pattern === undefined) {
      // Longest first: at any position the longest registered form wins.
      const sorted = [...this.needles.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
      this.pattern = new RegExp([LABEL_SOURCE, ...sorted.map(escapeRegExp)].join('|'), 'g');
      this.shortest = sorted[sorted.length - 1]?.length ?? Number.POSITIVE_INFINITY;
      this.dirty = false;
    }
    return this.pattern;
  }
}

/** The forms a value takes in serialised text, each a needle to mask. */
export function encodingsOf(value: string): string[] {
  const forms = new Set<string>([value]);
  const once = jsonInner(value);
  forms.add(once);
  forms.add(jsonInner(once));
  forms.add(asciiEscape(once, false));
  forms.add(asciiEscape(once, true));
  try {
    forms.add(encodeURIComponent(value));
  } catch {
    // A lone surrogate cannot be URL-encoded; then it cannot appear URL-encoded either.
  }
  for (const fragment of base64Fragments(value)) forms.add(fragment);
  return [...forms].filter((form) => form.length >= MIN_MASKABLE_LENGTH);
}

function jsonInner(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function asciiEscape(text: string, upper: boolean): string {
  return text.replace(/[\u007f-\uffff]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

/**
 * Base64 of the value as it would appear inside a longer base64 text: for each of the three byte
 * alignments, only the characters that depend on the value's bytes alone.
 */
function base64Fragments(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const first = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    const fragment = encoded.slice(first, end);
    if (fragment.length < MIN_BASE64_NEEDLE) continue;
    out.push(fragment, fragment.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
