import { SpecError } from './spec-errors';

const VARIABLE = /\$\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g;

/** Replaces `${name}` in every string of a JSON value; an unknown name is an error that names it. */
export function substituteVars<T>(value: T, vars: Readonly<Record<string, string>>, where: string): T {
  return walk(value, vars, where) as T;
}

function walk(value: unknown, vars: Readonly<Record<string, string>>, where: string): unknown {
  if (typeof value === 'string') {
    return value.replace(VARIABLE, (_m, name: string) => {
      const v = vars[name];
      if (v === undefined) {
        const known = Object.keys(vars).map((k) => '${' + k + '}').join(', ') || 'none';
        throw new SpecError(`${where}: unknown variable \${${name}} (known: ${known})`);
      }
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v) => walk(v, vars, where));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, vars, where);
    return out;
  }
  return value;
}
