import { schemaCompileError, validateJsonSchema } from '../boundary/json-schema';
import { jsonDepthExceeds } from '../util/json-depth';
import type { AssertCheck } from './document';
import { compileLinearRegex, type LinearRegex } from './linear-regex';

/**
 * An assert node's deterministic checks on its `value`. Values come from models and tools, so
 * every check is bounded: a regex is matched in linear time (linear-regex.ts, never the native
 * backtracking engine) on at most MAX_REGEX_SUBJECT_CHARS.
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
    case 'regex': {
      const compiled = linearRegex(check.pattern, check.flags ?? '');
      return compiled.ok ? undefined : compiled.message;
    }
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
      const compiled = linearRegex(check.pattern, check.flags ?? '');
      if (!compiled.ok) return compiled.message;
      const text = asText(value) ?? '';
      const bound = Math.min(MAX_REGEX_SUBJECT_CHARS, compiled.maxLength);
      if (text.length > bound) return `the value is longer than ${bound} characters`;
      return compiled.test(text) ? undefined : `the value does not match /${check.pattern}/${check.flags ?? ''}`;
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

/** Compiled patterns by flags and source (a workflow reuses its few patterns for every item). */
const compiledPatterns = new Map<string, LinearRegex>();

function linearRegex(pattern: string, flags: string): LinearRegex {
  const key = `${flags}/${pattern}`;
  let compiled = compiledPatterns.get(key);
  if (!compiled) {
    compiled = compileLinearRegex(pattern, flags);
    if (compiledPatterns.size >= 200) compiledPatterns.delete(compiledPatterns.keys().next().value as string);
    compiledPatterns.set(key, compiled);
  }
  return compiled;
}
