import type { z } from 'zod';
import { NODE_KINDS } from './document';
import type { GraphProblem } from './validate-graph';

/**
 * What a workflow's schema refuses, in words a person can act on ("name is required", "kind must
 * be one of …"), named by node and port like a graph problem. The editor, the host's
 * workflows.validate and `steward validate` all show these, so none of them shows Zod's own text.
 * A key is named only when it is spelled as the schema's own are (a file may be a secrets file by mistake).
 */
export function schemaProblems(doc: unknown, error: z.ZodError): GraphProblem[] {
  return error.issues.map((issue) => schemaProblem(doc, issue));
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
    const message = issue.code === 'invalid_union' && rest.length === 1 && rest[0] === 'kind' ? `kind must be one of ${NODE_KINDS.map((k) => `"${k}"`).join(', ')}` : issueWords(issue, rest.join('.'));
    return { ...(id !== undefined ? { node: id } : {}), ...(port !== undefined ? { port } : {}), code: 'schema', message };
  }
  if (path[0] === 'edges' && path[1] !== undefined) return { edge: Number(path[1]), code: 'schema', message: `edge ${Number(path[1]) + 1}: ${issueWords(issue, path.slice(2).join('.') || 'the edge')}` };
  return { code: 'schema', message: issueWords(issue, path.join('.') || 'the document') };
}

/** A key as the schema spells its own: naming one like it cannot echo a secret. */
const SCHEMA_KEY = /^[a-z_]{1,40}$/;

/** One issue as a sentence about `field` (its path, by default). */
export function issueWords(issue: z.core.$ZodIssue, field: string = issue.path.map(String).join('.') || 'the document'): string {
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
      return issue.input === undefined ? `${field} is required` : `${field} must be ${article(issue.expected)}`;
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
      // A pattern with its own message ("use lowercase letters, digits, - and _") says it best.
      return issue.message.startsWith('Invalid') ? `${field} is not a valid ${issue.format === 'regex' ? 'value' : issue.format}` : `${field}: ${issue.message}`;
    default:
      // Custom refinements (duplicate ids, pattern rules…) already speak in words.
      return field === 'the document' ? issue.message : `${field}: ${issue.message}`;
  }
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
