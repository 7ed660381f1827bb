import { schemaCompileError, validateJsonSchema } from '../boundary/json-schema';
import { jsonDepthExceeds } from '../util/json-depth';
import type { AssertCheck } from './document';

/**
 * An assert node's deterministic checks on its `value`. Values come from models and tools, so
 * every check is bounded: a regex runs only on patterns without the nested-quantifier and
 * backreference shapes that backtrack catastrophically, and on at most MAX_REGEX_SUBJECT_CHARS.
 */

export type CheckResult = { ok: true } | { ok: false; reason: string };

export const MAX_REGEX_SUBJECT_CHARS = 100_000;
const MAX_SCHEMA_ISSUES = 5;

export function runChecks(checks: AssertCheck[], value: unknown): CheckResult {
  for (const [i, check] of checks.entries()) {
    const reason = checkProblem(check) ?? failure(check, value);
    if (reason !== undefined) return { ok: false, reason: `check ${i + 1} (${check.check}): ${reason}` };
  }
  return { ok: true };
}

/** What is wrong with a check itself, whatever the value (graph validation reports it up front). */
export function checkProblem(check: AssertCheck): string | undefined {
  switch (check.check) {
    case 'json_schema': {
      const error = schemaCompileError(check.schema, schemaKey(check.schema));
      return error === undefined ? undefined : `the schema cannot be used: ${error}`;
    }
    case 'regex':
      return regexProblem(check.pattern, check.flags ?? '');
    case 'range':
      return check.min !== undefined && check.max !== undefined && check.min > check.max ? `min ${check.min} is above max ${check.max}` : undefined;
    default:
      return undefined;
  }
}

function failure(check: AssertCheck, value: unknown): string | undefined {
  switch (check.check) {
    case 'json_schema':
      return schemaFailure(check.schema, value);
    case 'contains':
      return (asText(value) ?? '').includes(check.text) ? undefined : `the value does not contain ${JSON.stringify(check.text)}`;
    case 'regex': {
      const text = asText(value) ?? '';
      if (text.length > MAX_REGEX_SUBJECT_CHARS) return `the value is longer than ${MAX_REGEX_SUBJECT_CHARS} characters`;
      return new RegExp(check.pattern, check.flags ?? '').test(text) ? undefined : `the value does not match /${check.pattern}/${check.flags ?? ''}`;
    }
    case 'range': {
      const n = asNumber(value);
      if (n === undefined) return 'the value is not a number';
      if (check.min !== undefined && n < check.min) return `${n} is below the minimum ${check.min}`;
      if (check.max !== undefined && n > check.max) return `${n} is above the maximum ${check.max}`;
      return undefined;
    }
    case 'non_empty':
      return isEmpty(value) ? 'the value is empty' : undefined;
  }
}

/** The cache key: the schema's text (prefixed so it never meets a tool snapshot's hash). */
function schemaKey(schema: Record<string, unknown>): string {
  return `assert:${JSON.stringify(schema)}`;
}

/** A value passes as itself, or (an agent answers in text) as the JSON its text holds, fenced or not. */
function schemaFailure(schema: Record<string, unknown>, value: unknown): string | undefined {
  const key = schemaKey(schema);
  let issues = validateJsonSchema(schema, key, value, 'the schema');
  if (issues.length === 0) return undefined;
  const parsed = typeof value === 'string' ? parseJsonText(value) : undefined;
  if (parsed !== undefined) {
    issues = validateJsonSchema(schema, key, parsed.value, 'the schema');
    if (issues.length === 0) return undefined;
  }
  const listed = issues.slice(0, MAX_SCHEMA_ISSUES).map((i) => (i.path !== undefined ? `${i.path}: ${i.message}` : i.message));
  return `the value does not match the schema: ${listed.join('; ')}${issues.length > MAX_SCHEMA_ISSUES ? ` (and ${issues.length - MAX_SCHEMA_ISSUES} more)` : ''}`;
}

function parseJsonText(text: string): { value: unknown } | undefined {
  const fenced = /^\s*```(?:json)?[ \t]*\n([\s\S]*?)\n?```\s*$/.exec(text);
  try {
    const value: unknown = JSON.parse(fenced ? (fenced[1] ?? '') : text);
    return jsonDepthExceeds(value) ? undefined : { value };
  } catch {
    return undefined;
  }
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && NUMBER_TEXT.test(value.trim())) return Number(value.trim());
  return undefined;
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}

/**
 * A pattern is refused when it does not compile, uses a backreference, or repeats (`*`, `+`,
 * `{n,}`) a group that itself contains a quantifier: the shapes of catastrophic backtracking.
 */
function regexProblem(pattern: string, flags: string): string | undefined {
  try {
    new RegExp(pattern, flags);
  } catch (err) {
    return `the pattern is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`;
  }
  const groups: boolean[] = [false]; // per open group: whether it contains a quantifier
  const quantified = () => (groups[groups.length - 1] = true);
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return 'the pattern uses a backreference, which can backtrack without bound';
      i++;
    } else if (c === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
    } else if (c === '(') {
      groups.push(false);
      if (pattern[i + 1] === '?') i += pattern[i + 2] === '<' && pattern[i + 3] !== '=' && pattern[i + 3] !== '!' ? pattern.indexOf('>', i) - i : 2;
    } else if (c === ')') {
      const inner = groups.pop() ?? false;
      const repeat = repeatAt(pattern, i + 1);
      if (inner && repeat === 'unbounded') return 'the pattern repeats a group that has its own quantifier, which can backtrack catastrophically';
      if (inner || repeat !== 'none') quantified();
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(i)))) {
      quantified();
    }
  }
  return undefined;
}

function repeatAt(pattern: string, i: number): 'none' | 'optional' | 'unbounded' {
  const c = pattern[i];
  if (c === '*' || c === '+') return 'unbounded';
  if (c === '?') return 'optional';
  const counted = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
  if (!counted) return 'none';
  return counted[2] !== undefined && (counted[3] === '' || Number(counted[3]) > 1) ? 'unbounded' : 'optional';
}
