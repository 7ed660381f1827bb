import type { z } from 'zod';
import { NODE_KINDS } from './document';
import { formatGraphProblem, type GraphProblem } from './validate-graph';

/**
 * What a workflow's schema refuses, in words a person can act on ("name is required", "kind must
 * be one of …"), named by node and port like a graph problem. The editor, the host's
 * workflows.validate and `steward validate` all show these, so none of them shows Zod's own text.
 * A key is named only when it is spelled as the schema's own are (a file may be a secrets file by mistake).
 */
export function schemaProblems(doc: unknown, error: z.ZodError): GraphProblem[] {
  return error.issues.map((issue) => schemaProblem(doc, issue));
}

/**
 * Whether the checked value has nothing at an issue's place: no key, `undefined`, or an empty text a
 * pattern or a minimum refused. Zod 4 leaves the input out of its issues (so a secret never rides in
 * one), so this is read from the value itself.
 */
function isEmptyIn(checked: unknown, issue: z.core.$ZodIssue): boolean {
  let at: unknown = checked;
  for (const key of issue.path) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return true;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at === undefined || (at === '' && (issue.code === 'invalid_format' || issue.code === 'too_small'));
}

interface NodeLike {
  id?: unknown;
  inputs?: unknown;
  fields?: unknown;
}

function schemaProblem(doc: unknown, issue: z.core.$ZodIssue): GraphProblem {
  // A segment that is not the schema's own (a record's key) is elided, as an unknown key's name is.
  const path = issue.path.map((p) => (typeof p === 'number' ? String(p) : typeof p === 'string' && SCHEMA_KEY.test(p) ? p : '…'));
  const nodes = isObject(doc) && Array.isArray(doc.nodes) ? (doc.nodes as unknown[]) : [];
  if (path[0] === 'nodes' && path[1] !== undefined && path.length > 2) {
    const node = nodes[Number(path[1])] as NodeLike | undefined;
    const rest = path.slice(2);
    const list = rest[0] === 'inputs' ? node?.inputs : rest[0] === 'fields' ? node?.fields : undefined;
    const entry = Array.isArray(list) && rest[1] !== undefined ? (list[Number(rest[1])] as { name?: unknown } | undefined) : undefined;
    const port = typeof entry?.name === 'string' && entry.name !== '' ? entry.name : undefined;
    const id = typeof node?.id === 'string' && node.id !== '' ? node.id : undefined;
    // A kind the document format does not have: say which it has.
    const message = issue.code === 'invalid_union' && rest.length === 1 && rest[0] === 'kind' ? `kind must be one of ${NODE_KINDS.map((k) => `"${k}"`).join(', ')}` : placeWordsIn(doc, issue, rest);
    return { ...(id !== undefined ? { node: id } : {}), ...(port !== undefined ? { port } : {}), code: 'schema', message };
  }
  if (path[0] === 'edges' && path[1] !== undefined) return { edge: Number(path[1]), code: 'schema', message: `edge ${Number(path[1]) + 1}: ${path.length > 2 ? placeWordsIn(doc, issue, path.slice(2)) : issueWordsIn(doc, issue, 'the edge')}` };
  return { code: 'schema', message: path.length > 0 ? placeWordsIn(doc, issue, path) : issueWordsIn(doc, issue, 'the document') };
}

/**
 * An issue's place as a person names it (issue 28): a list entry by its position in words ("the
 * first server entry", not `servers.0`), a field of it in backquotes; a missing field says what to
 * put there where the format knows.
 */
function placeWordsIn(doc: unknown, issue: z.core.$ZodIssue, path: readonly string[]): string {
  const last = lastIndexAt(path);
  if (last < 0) return issueWordsIn(doc, issue, path.join('.'));
  const entry = entryWords(path.slice(0, last + 1));
  const tail = path.slice(last + 1).join('.');
  if (tail === '') return issueWordsIn(doc, issue, entry);
  if (isMissing(issue, doc)) {
    const list = path[last - 1] ?? '';
    const hint = MISSING_HINTS.get(`${list}.${tail}`);
    return `${entry} has no \`${tail}\`${hint ? `: ${hint}` : ''}`;
  }
  return issueWordsIn(doc, issue, `\`${tail}\` in ${entry}`);
}

/** What to put in a required field a file left out, where the format knows (list.field). */
const MISSING_HINTS: ReadonlyMap<string, string> = new Map([
  ['servers.server', 'name the registered server it uses (its id in the MCP registry)'],
  ['servers.id', 'name it as this workflow\'s nodes know it'],
  ['fields.name', 'name the port'],
  ['inputs.name', 'name the port'],
  ['checks.check', 'say which check it is'],
]);

function isMissing(issue: z.core.$ZodIssue, doc: unknown): boolean {
  return (issue.code === 'invalid_type' && isEmptyIn(doc, issue)) || (issue.code === 'too_small' && issue.origin === 'string' && Number(issue.minimum) <= 1);
}

/** Position of the last list index in a path (-1: none); an index at the start names no list. */
function lastIndexAt(path: readonly string[]): number {
  for (let i = path.length - 1; i >= 1; i--) if (/^\d+$/.test(path[i]!)) return i;
  return -1;
}

/** A path that ends at a list entry, in words: "the second check of the first …", "the first server entry". */
function entryWords(path: readonly string[]): string {
  const last = path.length - 1;
  const list = path[last - 1] ?? '';
  const noun = `the ${ordinal(Number(path[last]))} ${LIST_NOUNS.get(list) ?? (list.endsWith('s') && list.length > 1 ? list.slice(0, -1) : `${list} entry`).replace(/_/g, ' ')}`;
  const parent = path.slice(0, last - 1);
  if (parent.length === 0) return noun;
  const at = lastIndexAt(parent);
  if (at < 0) return `${noun} of \`${parent.join('.')}\``;
  const within = parent.slice(at + 1);
  return `${noun} of ${within.length > 0 ? `\`${within.join('.')}\` in ` : ''}${entryWords(parent.slice(0, at + 1))}`;
}

const LIST_NOUNS: ReadonlyMap<string, string> = new Map([
  ['servers', 'server entry'],
  ['entries', 'entry'],
  ['branches', 'branch'],
  ['tools', 'tool name'],
]);

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

function ordinal(index: number): string {
  const n = index + 1;
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return ORDINALS[index] ?? `${n}${suffix}`;
}

/** An issue's path as the schema names it (a record's key elided), for a message's details. */
export function schemaIssuePath(issue: z.core.$ZodIssue): string {
  return issue.path.map((p) => (typeof p === 'number' ? String(p) : typeof p === 'string' && SCHEMA_KEY.test(p) ? p : '…')).join('.');
}

/** A key as the schema spells its own: naming one like it cannot echo a secret. */
const SCHEMA_KEY = /^[a-z_]{1,40}$/;

/** One issue of `checked` (the value that was parsed) as a sentence about `field` (its path, by default): a missing or empty value is "required". */
export function issueWordsIn(checked: unknown, issue: z.core.$ZodIssue, field: string = issue.path.map(String).join('.') || 'the document'): string {
  switch (issue.code) {
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') return min <= 1 ? `${field} is required` : `${field} needs at least ${min} characters`;
      if (issue.origin === 'array') return `${field} needs at least ${min} ${min === 1 ? 'entry' : 'entries'}`;
      // A bound with its own words (the Runtime limits: "the round limit is … from 1 to 200") says it best.
      return ownWords(issue) ? `${field}: ${issue.message}` : `${field} must be at least ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `${field} is too long (at most ${max} characters)`;
      if (issue.origin === 'array') return `${field} has too many entries (at most ${max})`;
      return ownWords(issue) ? `${field}: ${issue.message}` : `${field} must be at most ${max}`;
    }
    case 'invalid_type':
      return isEmptyIn(checked, issue) ? `${field} is required` : `${field} must be ${article(issue.expected)}`;
    case 'unrecognized_keys': {
      const plain = issue.keys.every((k) => SCHEMA_KEY.test(k));
      const names = plain ? issue.keys.map((k) => `"${k}"`).join(', ') : `${issue.keys.length}`;
      return `${field} has ${issue.keys.length === 1 ? 'an unknown field' : 'unknown fields'} ${names}: this format has no such field (remove ${issue.keys.length === 1 ? 'it' : 'them'})`;
    }
    case 'invalid_value':
      return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union':
      return `${field} is not any of the forms it may take`;
    case 'invalid_format':
      // Nothing typed yet is a missing value, not a badly spelled one.
      if (issue.format === 'regex' && isEmptyIn(checked, issue)) return `${field} is required`;
      // A pattern with its own message ("use lowercase letters, digits, - and _") says it best.
      return issue.message.startsWith('Invalid') ? `${field} is not a valid ${issue.format === 'regex' ? 'value' : issue.format}` : `${field}: ${issue.message}`;
    default:
      // Custom refinements (duplicate ids, pattern rules…) already speak in words.
      return field === 'the document' ? issue.message : `${field}: ${issue.message}`;
  }
}

/** Every issue of `checked`, each named by its path (or `whole` for the value itself), joined as one sentence. */
export function allIssueWordsIn(checked: unknown, issues: readonly z.core.$ZodIssue[], whole: string): string {
  return issues.map((i) => issueWordsIn(checked, i, i.path.map(String).join('.') || whole)).join('; ');
}

/** Zod's own bound messages start "Too small"/"Too big"; any other was written for a person. */
const ownWords = (issue: z.core.$ZodIssue): boolean => !/^Too (small|big)\b/.test(issue.message);

function article(expected: string): string {
  const noun = expected === 'record' ? 'object' : expected === 'array' ? 'list' : expected;
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Problems after a lead that already says where they are ("f.json is not a Steward workflow: …"):
 * a problem of the document itself without a second "workflow: " lead, one of a node, port or edge
 * named as formatGraphProblem names it; past `max`, how many more.
 */
export function problemsAfterLead(problems: readonly GraphProblem[], max: number): string {
  const shown = problems.slice(0, max).map((p) => (p.node === undefined && p.port === undefined && p.edge === undefined ? p.message : formatGraphProblem(p)));
  return `${shown.join('; ')}${problems.length > max ? ` (and ${problems.length - max} more)` : ''}`;
}
