import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * Arguments are checked against the tool's input JSON Schema as snapshotted for the round.
 * Compiled validators are cached by the snapshot's schema hash, so a changed schema is a new entry.
 */
const draft07 = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const draft2020 = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const cache = new Map<string, ValidateFunction | Error>();
const CACHE_LIMIT = 500;

export interface SchemaIssue {
  message: string;
  path?: string;
}

export function validateJsonSchema(schema: Record<string, unknown>, schemaHash: string, value: unknown): SchemaIssue[] {
  let validate = cache.get(schemaHash);
  if (!validate) {
    validate = compile(schema);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(schemaHash, validate);
  }
  if (validate instanceof Error) return [{ message: `the tool's input schema cannot be used: ${validate.message}` }];
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => ({
    message: e.keyword === 'additionalProperties'
      ? `unexpected property "${String((e.params as { additionalProperty?: string }).additionalProperty)}"`
      : (e.message ?? 'invalid'),
    path: e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : undefined,
  }));
}

function compile(schema: Record<string, unknown>): ValidateFunction | Error {
  const { $schema, ...rest } = schema;
  const is2020 = typeof $schema === 'string' && $schema.includes('2020-12');
  try {
    // $schema is dropped so a draft URL the compiler does not know cannot reject a usable schema.
    return is2020 ? draft2020.compile(rest) : draft07.compile(rest);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}
