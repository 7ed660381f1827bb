import fc from 'fast-check';

/**
 * Inputs for property tests at a boundary: valid examples mutated (a value replaced by any JSON or
 * any JS value, a key deleted, a key added), plus wholly arbitrary JSON and JS values. Mutations
 * of valid examples reach the deep branches that random values never get past the first check of.
 */

type Path = Array<string | number>;
type Op = { kind: 'replace' | 'delete' | 'add'; at: number; value: unknown; key: string };

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return value !== null && typeof value === 'object';
}

/** Every path into a JSON-like value, the root (`[]`) included. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (isContainer(value)) for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

function applyOp(value: unknown, path: Path, op: Op): unknown {
  if (path.length === 0) {
    if (op.kind === 'replace') return op.value;
    if (op.kind === 'add' && isContainer(value)) {
      if (Array.isArray(value)) return [...value, op.value];
      return { ...value, [op.key]: op.value };
    }
    return op.kind === 'delete' ? undefined : value;
  }
  if (!isContainer(value)) return value;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const i = Number(head);
    if (path.length === 1 && op.kind === 'delete') return value.filter((_, j) => j !== i);
    return value.map((v, j) => (j === i ? applyOp(v, rest, op) : v));
  }
  const key = String(head);
  if (path.length === 1 && op.kind === 'delete') {
    const { [key]: _dropped, ...kept } = value;
    return kept;
  }
  return { ...value, [key]: applyOp(value[key], rest, op) };
}

const replacement: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.anything({ maxDepth: 2 }),
  fc.string(),
  fc.constantFrom(null, undefined, '', 0, -1, 1e308, Number.NaN, true, [], {}, '__proto__', 'constructor', '../../etc/passwd', 'keychain:x'),
);

const op: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom('replace' as const, 'delete' as const, 'add' as const),
  at: fc.nat(),
  value: replacement,
  key: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'id', 'type', 'arguments')),
});

/** A valid example with 1–3 mutations applied one after the other. */
export function mutationsOf(seed: unknown): fc.Arbitrary<unknown> {
  return fc.array(op, { minLength: 1, maxLength: 3 }).map((ops) =>
    ops.reduce<unknown>((value, o) => {
      const paths = pathsOf(value);
      return applyOp(value, paths[o.at % paths.length] ?? [], o);
    }, structuredClone(seed)),
  );
}

/** Mutations of the valid examples, plus any JSON and any value at all. */
export function boundaryInputs(seeds: readonly unknown[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.oneof(...seeds.map((s) => mutationsOf(s))) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) },
  );
}

/** Keeps each property bounded: the whole fuzz suite runs in seconds on two cores. */
export const FUZZ_RUNS = { numRuns: 300 } as const;
