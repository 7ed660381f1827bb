import { z } from 'zod';
import { roundNumber } from '../contracts/round-number';
import { ServerTrust } from '../contracts/server-trust';

/**
 * Where did this value come from? (issue 31.) For each argument of a proposed tool call, the values
 * that were copied from an earlier tool result of this run — which server, tool and round — rather
 * than from the person's task, the agent's instructions or the person's own words. Pure: the host
 * passes what the run has seen; the boundary machine marks the candidate, the review policy reads the
 * marks, and the teacher's card, the person's approval card and the CLI show them.
 *
 * What counts as a value (a match means something only when the value is specific enough that two
 * texts sharing it is not chance):
 * - a whole string argument of at least MIN_TEXT characters (after normalising), with a letter or digit;
 * - inside longer text: URLs, e-mail addresses, paths of two or more segments, numbers of at least
 *   MIN_DIGITS digits (groups joined by . , or -), and runs of at least SPAN_WORDS words and SPAN_CHARS
 *   characters copied verbatim;
 * - a number argument of at least MIN_DIGITS digits.
 * Texts are compared normalised: Unicode NFKC, lower case (as code point by code point), control
 * characters as spaces, runs of white space as one space. A result is also searched with its JSON
 * string escapes undone (servers often return JSON text). A value the task (or the instructions, or
 * the person's words) also contains counts as the person's: it is never attributed to a tool. A
 * result that only echoes its own call's arguments is not a source of those values.
 */

export const MIN_TEXT = 8;
export const MIN_DIGITS = 6;
export const SPAN_WORDS = 4;
export const SPAN_CHARS = 24;
/** How much of a marked value a record keeps, and how many sources per mark. */
export const MAX_VALUE = 160;
export const MAX_SOURCES = 5;
/** Bounds of one decision's marks, and of the argument text scanned for copied runs of words. */
export const MAX_MARKS = 40;
const MAX_SCAN_WORDS = 4000;
const MAX_ATOMS = 200;

export const ProvenanceSource = z
  .object({ server: z.string().min(1), tool: z.string().min(1), round: z.number().int().nonnegative(), trust: ServerTrust })
  .strict();
export type ProvenanceSource = z.infer<typeof ProvenanceSource>;

export const VALUE_KINDS = ['text', 'number', 'url', 'email', 'path'] as const;
export const ValueKind = z.enum(VALUE_KINDS);
export type ValueKind = z.infer<typeof ValueKind>;

/** One value of one argument that came from earlier tool results. */
export const ArgumentProvenance = z
  .object({
    /** The argument, as `content`, `entities[0].observations[1]`. */
    path: z.string(),
    /** The value as the argument has it (cut at MAX_VALUE characters, marked with …). */
    value: z.string().max(MAX_VALUE + 1),
    kind: ValueKind,
    /** Earliest first. */
    sources: z.array(ProvenanceSource).min(1).max(MAX_SOURCES),
  })
  .strict();
export type ArgumentProvenance = z.infer<typeof ArgumentProvenance>;

/** A tool result the run has seen (its text as the models saw it) and the trust level of its server. */
export interface ToolResultSeen {
  server: string;
  tool: string;
  round: number;
  trust: ServerTrust;
  text: string;
  /** The call's own arguments: a value the result merely echoes back is not from the tool. */
  arguments?: unknown;
}

export interface ProvenanceFacts {
  /** The person's texts: the task (with the workflow's inputs in it), the instructions, what they told the agent. */
  given: readonly string[];
  results: readonly ToolResultSeen[];
  /**
   * Kept between the rounds of one run (results only ever added, the same objects each round): a value
   * looked for before is looked for only in the results seen since, so a round does not cost more as
   * the run grows (issue 26's bench: a 200-round run's rounds must cost what a 20-round run's do).
   */
  memo?: AttributionMemo;
}

interface MemoEntry {
  /** The person's texts this attribution was made against: when they change, the value is looked for again. */
  given: string;
  /** The results already searched, and the last of them (the same object, or everything is searched again). */
  scanned: number;
  last: ToolResultSeen | undefined;
  sources: ProvenanceSource[];
  keys: Set<string>;
}

/** What a run's earlier rounds found, per normalised value (bounded; the oldest is dropped first). */
export class AttributionMemo {
  readonly entries = new Map<string, MemoEntry>();
  constructor(readonly limit = 2000) {}
  remember(value: string, entry: MemoEntry): void {
    this.entries.delete(value);
    if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(value, entry);
  }
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/gu;

/** The form texts are compared in: NFKC, lower case per code point, controls as spaces, white space collapsed. */
export function normaliseText(text: string): string {
  // toLowerCase has one rule that depends on context (a capital sigma ending a word becomes ς): folding
  // ς into σ makes it per code point, so a value lowers the same inside a longer text as on its own.
  return text.normalize('NFKC').toLowerCase().replace(/ς/gu, 'σ').replace(CONTROL, ' ').replace(/\s+/gu, ' ').trim();
}

/**
 * The person's texts (the task, the instructions) are the same every round of a run and may be long:
 * each is normalised once (a small memo, keyed by the text), not every round (issue 26's bench found
 * the per-round cost growing with the run).
 */
const givenMemo = new Map<string, string>();
const GIVEN_MEMO_SIZE = 64;
function normalisedGiven(text: string): string {
  const known = givenMemo.get(text);
  if (known !== undefined) return known;
  const normalised = normaliseText(text);
  if (givenMemo.size >= GIVEN_MEMO_SIZE) givenMemo.delete(givenMemo.keys().next().value as string);
  givenMemo.set(text, normalised);
  return normalised;
}

/**
 * The person's texts normalised and joined: a run passes the same texts every round, so the last
 * joined form is kept while they are the same (the memo's entries compare it, and a new string of
 * the same text would be compared character by character).
 */
let lastGiven: { texts: readonly string[]; joined: string } | undefined;
function joinedGiven(texts: readonly string[]): string {
  const last = lastGiven;
  if (last !== undefined && last.texts.length === texts.length && last.texts.every((text, i) => text === texts[i])) return last.joined;
  const joined = texts.map(normalisedGiven).join(SEP);
  lastGiven = { texts: [...texts], joined };
  return joined;
}

const unescapeJson = (text: string): string =>
  text.replace(/\\(["\\/nrt])/gu, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c === 't' ? '\t' : c));

/** Normalised texts joined with NUL, which no normalised value contains. */
const SEP = '\u0000';

interface IndexedResult {
  source: ProvenanceSource;
  text: string;
  echo: string;
  /** Every pair of consecutive words of the text: a run of words is looked for only where its inner pair occurs. */
  pairs: Set<string>;
}

function wordPairs(text: string): Set<string> {
  const pairs = new Set<string>();
  for (const part of text.split(SEP)) {
    const words = part.split(' ');
    for (let i = 0; i + 1 < words.length; i += 1) pairs.add(`${words[i]} ${words[i + 1]}`);
  }
  return pairs;
}

const indexCache = new WeakMap<ToolResultSeen, IndexedResult>();

function leafTexts(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(normaliseText(value));
  else if (typeof value === 'number') out.push(normaliseText(String(value)));
  else if (Array.isArray(value)) for (const v of value) leafTexts(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) leafTexts(v, out);
}

function indexResult(result: ToolResultSeen): IndexedResult {
  const known = indexCache.get(result);
  if (known) return known;
  const plain = normaliseText(result.text);
  // Most results hold no JSON escape: their unescaped form is the same text, normalised once.
  const unescaped = result.text.includes('\\') ? normaliseText(unescapeJson(result.text)) : plain;
  const echoes: string[] = [];
  leafTexts(result.arguments, echoes);
  const text = unescaped === plain ? plain : `${plain}${SEP}${unescaped}`;
  const indexed = {
    source: { server: result.server, tool: result.tool, round: result.round, trust: result.trust },
    text,
    echo: echoes.join(SEP),
    pairs: wordPairs(text),
  };
  indexCache.set(result, indexed);
  return indexed;
}

type Attribution = { kind: 'given' } | { kind: 'tool'; sources: ProvenanceSource[] } | { kind: 'none' };

class Attributor {
  private readonly given: string;
  private readonly seen: readonly ToolResultSeen[];
  private readonly memo: AttributionMemo | undefined;
  constructor(facts: ProvenanceFacts) {
    this.given = joinedGiven(facts.given);
    this.seen = facts.results;
    this.memo = facts.memo;
  }

  /**
   * Where a normalised value came from: the person's texts first, then the results that contain it
   * (not as an echo). A value of four or more words is looked for only in results holding its
   * second and third words side by side (words inside it are whole words wherever it occurs), so a
   * long argument costs a set lookup per result for most of its runs of words.
   */
  attribute(value: string): Attribution {
    if (value === '') return { kind: 'none' };
    if (this.given.includes(value)) return { kind: 'given' };
    const words = value.split(' ');
    const inner = words.length >= 4 ? `${words[1]} ${words[2]}` : undefined;
    const known = this.memo?.entries.get(value);
    const resume = known !== undefined && known.given === this.given && known.scanned <= this.seen.length && (known.scanned === 0 || this.seen[known.scanned - 1] === known.last);
    const entry: MemoEntry = resume ? known : { given: this.given, scanned: 0, last: undefined, sources: [], keys: new Set() };
    for (let i = entry.scanned; i < this.seen.length; i += 1) {
      const r = indexResult(this.seen[i] as ToolResultSeen);
      if (inner !== undefined && !r.pairs.has(inner)) continue;
      if (!r.text.includes(value) || r.echo.includes(value)) continue;
      const key = `${r.source.server}\u0000${r.source.tool}\u0000${r.source.round}`;
      if (entry.keys.has(key)) continue;
      entry.keys.add(key);
      entry.sources.push(r.source);
    }
    entry.scanned = this.seen.length;
    entry.last = this.seen.at(-1);
    this.memo?.remember(value, entry);
    if (entry.sources.length === 0) return { kind: 'none' };
    const sources = [...entry.sources].sort((a, b) => a.round - b.round);
    return { kind: 'tool', sources: sources.slice(0, MAX_SOURCES) };
  }
}

const URL_RE = /\bhttps?:\/\/[^\s"'<>()[\]{}]+/giu;
const EMAIL_RE = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
const PATH_RE = /(?:~|\.{1,2})?(?:\/[\p{L}\p{N}._~-]+){2,}\/?|[A-Za-z]:\\(?:[\p{L}\p{N}._~ -]+\\?){2,}/gu;
const NUMBER_RE = /\d(?:[\d.,-]*\d)?/gu;

const digitCount = (text: string): number => (text.match(/\d/gu) ?? []).length;
const hasLetterOrDigit = (text: string): boolean => /[\p{L}\p{N}]/u.test(text);
const fullMatch = (re: RegExp, text: string): boolean => {
  const m = text.match(new RegExp(re.source, re.flags.replace('g', '')));
  return m !== null && m.index === 0 && m[0].length === text.length;
};

function kindOf(text: string): ValueKind {
  const t = text.trim();
  if (fullMatch(EMAIL_RE, t)) return 'email';
  if (fullMatch(URL_RE, t)) return 'url';
  if (fullMatch(PATH_RE, t)) return 'path';
  if (/^[\d\s.,+-]+$/u.test(t) && digitCount(t) >= MIN_DIGITS) return 'number';
  return 'text';
}

/** Whether a whole argument value is specific enough to be traced. */
function meaningfulWhole(raw: string, normalised: string): boolean {
  if (!hasLetterOrDigit(normalised)) return false;
  if (normalised.length >= MIN_TEXT) return true;
  const kind = kindOf(raw);
  return kind === 'email' || kind === 'url' || (kind === 'number' && digitCount(raw) >= MIN_DIGITS);
}

const clipValue = (text: string): string => (text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text);

function embeddedAtoms(text: string): { raw: string; kind: ValueKind }[] {
  const atoms: { raw: string; kind: ValueKind }[] = [];
  for (const m of text.matchAll(URL_RE)) atoms.push({ raw: m[0], kind: 'url' });
  for (const m of text.matchAll(EMAIL_RE)) atoms.push({ raw: m[0], kind: 'email' });
  for (const m of text.matchAll(PATH_RE)) if (m[0].length >= 6) atoms.push({ raw: m[0], kind: 'path' });
  for (const m of text.matchAll(NUMBER_RE)) if (digitCount(m[0]) >= MIN_DIGITS) atoms.push({ raw: m[0], kind: 'number' });
  return atoms.slice(0, MAX_ATOMS);
}

/** Runs of words copied verbatim from results (longest first found, left to right). */
function copiedSpans(text: string, attributor: Attributor): { raw: string; sources: ProvenanceSource[] }[] {
  const words = text.split(/\s+/u).filter((w) => w !== '').slice(0, MAX_SCAN_WORDS);
  const spans: { raw: string; sources: ProvenanceSource[] }[] = [];
  const join = (from: number, to: number) => words.slice(from, to).join(' ');
  let i = 0;
  while (i + SPAN_WORDS <= words.length) {
    // The shortest run from here that is long enough to mean something: SPAN_WORDS words and SPAN_CHARS characters.
    let end = i + SPAN_WORDS;
    while (end < words.length && join(i, end).length < SPAN_CHARS) end += 1;
    const firstNorm = normaliseText(join(i, end));
    const found = firstNorm.length >= SPAN_CHARS ? attributor.attribute(firstNorm) : { kind: 'none' as const };
    if (found.kind !== 'tool') {
      i += 1;
      continue;
    }
    let sources = found.sources;
    while (end < words.length) {
      const longer = attributor.attribute(normaliseText(join(i, end + 1)));
      if (longer.kind !== 'tool') break;
      sources = longer.sources;
      end += 1;
    }
    spans.push({ raw: join(i, end), sources });
    i = end;
  }
  return spans;
}

/** What a string argument is made of, for tracing: a pure function of the text. */
interface StringShape {
  whole: string;
  meaningful: boolean;
  atoms: { raw: string; kind: ValueKind; norm: string }[];
}

/**
 * A run proposes the same argument texts round after round (a path, a URL): their shape is worked
 * out once (a small memo, keyed by the text), and only their attribution, which the results seen
 * since can change, is done again (issue 26: a round's host CPU).
 */
const shapeMemo = new Map<string, StringShape>();
const SHAPE_MEMO_SIZE = 256;
const SHAPE_MEMO_TEXT = 2000;
function shapeOf(raw: string): StringShape {
  const known = shapeMemo.get(raw);
  if (known) return known;
  const whole = normaliseText(raw);
  const shape = { whole, meaningful: meaningfulWhole(raw, whole), atoms: embeddedAtoms(raw).map((atom) => ({ ...atom, norm: normaliseText(atom.raw) })) };
  if (raw.length <= SHAPE_MEMO_TEXT) {
    if (shapeMemo.size >= SHAPE_MEMO_SIZE) shapeMemo.delete(shapeMemo.keys().next().value as string);
    shapeMemo.set(raw, shape);
  }
  return shape;
}

function marksOfString(path: string, raw: string, attributor: Attributor, out: ArgumentProvenance[]): void {
  const { whole, meaningful, atoms } = shapeOf(raw);
  if (meaningful) {
    const found = attributor.attribute(whole);
    // The person's value: so is every part of it.
    if (found.kind === 'given') return;
    if (found.kind === 'tool') {
      out.push({ path, value: clipValue(raw.trim()), kind: kindOf(raw), sources: found.sources });
      return;
    }
  }
  const spans = copiedSpans(raw, attributor);
  const spanTexts = spans.map((s) => normaliseText(s.raw));
  for (const s of spans) out.push({ path, value: clipValue(s.raw), kind: 'text', sources: s.sources });
  // URLs and addresses first: a path or number inside one is part of it, not a value of its own.
  const covered: string[] = [...spanTexts];
  for (const atom of atoms) {
    const norm = atom.norm;
    if (covered.some((t) => t.includes(norm))) continue;
    covered.push(norm);
    const found = attributor.attribute(norm);
    if (found.kind === 'tool') out.push({ path, value: clipValue(atom.raw), kind: atom.kind, sources: found.sources });
  }
}

const isIdentifier = (key: string): boolean => /^[A-Za-z_$][\w$]*$/u.test(key);
const childPath = (parent: string, key: string): string => (isIdentifier(key) ? (parent === '' ? key : `${parent}.${key}`) : `${parent}[${JSON.stringify(key)}]`);

function walk(path: string, value: unknown, attributor: Attributor, out: ArgumentProvenance[], depth: number): void {
  if (out.length >= MAX_MARKS || depth > 32) return;
  if (typeof value === 'string') marksOfString(path, value, attributor, out);
  else if (typeof value === 'number' && Number.isFinite(value)) {
    const text = String(value);
    if (digitCount(text) < MIN_DIGITS) return;
    const found = attributor.attribute(normaliseText(text));
    if (found.kind === 'tool') out.push({ path, value: text, kind: 'number', sources: found.sources });
  } else if (Array.isArray(value)) value.forEach((v, i) => walk(`${path}[${i}]`, v, attributor, out, depth + 1));
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) walk(childPath(path, key), v, attributor, out, depth + 1);
  }
}

/** The values of a tool call's arguments that came from earlier tool results, argument by argument. */
export function traceProvenance(args: Readonly<Record<string, unknown>>, facts: ProvenanceFacts): ArgumentProvenance[] {
  if (facts.results.length === 0) return [];
  const out: ArgumentProvenance[] = [];
  walk('', args, new Attributor(facts), out, 0);
  return out.slice(0, MAX_MARKS);
}

/** The marks with at least one untrusted source: what the review rule `untrusted_provenance` looks at. */
export function untrustedMarks(marks: readonly ArgumentProvenance[]): ArgumentProvenance[] {
  return marks.filter((m) => m.sources.some((s) => s.trust === 'untrusted'));
}

// ---------------------------------------------------------------------------------------------
// Words

/** `fs/read_text_file in round 2 (untrusted)`. */
export function sourceWords(source: ProvenanceSource): string {
  return `${source.server}/${source.tool} in round ${roundNumber(source.round)} (${source.trust})`;
}

const quoted = (value: string, max = 60): string => JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);

/** One mark as a line: `content carries "…" from fs/read_text_file in round 2 (untrusted)`. */
export function markWords(mark: ArgumentProvenance): string {
  const [first, ...more] = mark.sources;
  const from = first ? sourceWords(first) : 'an earlier tool result';
  const also = more.length > 0 ? `; also in ${more.map(sourceWords).join(', ')}` : '';
  return `${mark.path || 'the arguments'} carries ${quoted(mark.value)} from ${from}${also}`;
}

/** The review reason of the rule: which argument, which server, tool and round. */
export function provenanceReason(marks: readonly ArgumentProvenance[]): string {
  const [first, ...rest] = marks;
  if (!first) return 'no argument carries a value from an untrusted tool result';
  const more = rest.length > 0 ? ` (and ${rest.length} more value${rest.length === 1 ? '' : 's'})` : '';
  return `argument ${markWords(first)}${more}`.slice(0, 480);
}

/** Whether a mark's argument path lies under the top-level argument `name`. */
function underArgument(path: string, name: string): boolean {
  const head = isIdentifier(name) ? name : `[${JSON.stringify(name)}]`;
  return path === head || path.startsWith(`${head}.`) || path.startsWith(`${head}[`);
}

/** Marks of sensitive arguments keep their source but never their value (it would leak into traces and prompts). */
export function maskSensitiveMarks(marks: readonly ArgumentProvenance[], sensitive: readonly string[], mask: string): ArgumentProvenance[] {
  if (sensitive.length === 0) return [...marks];
  return marks.map((m) => (sensitive.some((name) => underArgument(m.path, name)) ? { ...m, value: mask } : m));
}
