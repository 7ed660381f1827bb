import { setOwn } from './set-own';
const VARIABLE = /\$\{([^}]*)\}/g;

/** `${name}` named a variable nobody defined. */
export class UnknownVariableError extends Error {
  constructor(
    readonly variable: string,
    readonly where: string,
    known: readonly string[],
  ) {
    super(`unknown variable \${${variable}} in ${where} (known: ${known.length ? known.map((k) => '${' + k + '}').join(', ') : 'none'})`);
    this.name = 'UnknownVariableError';
  }
}

/**
 * Replaces `${name}` in every string of a JSON value (a string, or arrays/objects of them, at any
 * depth). One implementation for specs, scripts and server launches, so they agree on the rules.
 */
export function substituteVars<T>(value: T, vars: Readonly<Record<string, string>>, where: string): T {
  return walk(value, vars, where) as T;
}

function walk(value: unknown, vars: Readonly<Record<string, string>>, where: string): unknown {
  if (typeof value === 'string') {
    return value.replace(VARIABLE, (_m, name: string) => {
      if (!Object.hasOwn(vars, name)) throw new UnknownVariableError(name, where, Object.keys(vars).sort());
      return vars[name] ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((v) => walk(v, vars, where));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, walk(v, vars, where));
    return out;
  }
  return value;
}
