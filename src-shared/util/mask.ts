export const MASK = '••••••';

/** Mask the named argument keys (at any depth) so traces never carry sensitive values. */
export function maskArguments(args: Record<string, unknown>, sensitive: readonly string[]): Record<string, unknown> {
  if (sensitive.length === 0) return args;
  const names = new Set(sensitive);
  return maskValue(args, names) as Record<string, unknown>;
}

function maskValue(value: unknown, names: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => maskValue(v, names));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = names.has(k) ? MASK : maskValue(v, names);
    return out;
  }
  return value;
}
