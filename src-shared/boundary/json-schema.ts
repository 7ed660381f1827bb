import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * Arguments are checked against the tool's input JSON Schema as snapshotted for the round.
 * Compiled validators are cached by the snapshot's schema hash, so a changed schema is a new entry.
 */
const draft07 = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const draft2019 = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
const draft2020 = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const cache = new Map<string, ValidateFunction | Error>();
const CACHE_LIMIT = 500;

export interface SchemaIssue {
  message: string;
  path?: string;
}

/** `subject` names the schema in the message when it cannot be compiled. */
export function validateJsonSchema(schema: Record<string, unknown>, schemaHash: string, value: unknown, subject = "the tool's input schema"): SchemaIssue[] {
  const validate = compiled(schema, schemaHash);
  if (validate instanceof Error) return [{ message: `${subject} cannot be used: ${validate.message}` }];
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => {
    // A missing or unexpected property is reported on its parent; point at the property itself.
    const params = e.params as { additionalProperty?: string; missingProperty?: string };
    const property = e.keyword === 'additionalProperties' ? params.additionalProperty : e.keyword === 'required' ? params.missingProperty : undefined;
    const segments = [...(e.instancePath ? e.instancePath.slice(1).split('/') : []), ...(property !== undefined ? [property] : [])];
    return {
      message: e.keyword === 'additionalProperties' ? `unexpected property "${String(params.additionalProperty)}"` : (e.message ?? 'invalid'),
      path: segments.length > 0 ? segments.join('.') : undefined,
    };
  });
}

/** Why a schema cannot be compiled, or undefined when it can (graph validation checks asserts' schemas up front). */
export function schemaCompileError(schema: Record<string, unknown>, schemaHash: string): string | undefined {
  const validate = compiled(schema, schemaHash);
  return validate instanceof Error ? validate.message : undefined;
}

function compiled(schema: Record<string, unknown>, schemaHash: string): ValidateFunction | Error {
  let validate = cache.get(schemaHash);
  if (!validate) {
    validate = compile(schema);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(schemaHash, validate);
  }
  return validate;
}

/** The dialect a schema declares. MCP says a schema without `$schema` is JSON Schema 2020-12. */
function compilersFor($schema: unknown): Array<Ajv | Ajv2019 | Ajv2020> {
  if (typeof $schema !== 'string') return [draft2020, draft07]; // undeclared: 2020-12, else a draft-07-only schema
  if ($schema.includes('2020-12')) return [draft2020];
  if ($schema.includes('2019-09')) return [draft2019];
  return [draft07]; // draft-04/06/07
}

function compile(schema: Record<string, unknown>): ValidateFunction | Error {
  const { $schema, ...rest } = schema;
  let failure: Error = new Error('no compiler');
  // $schema is dropped so a draft URL the compiler does not know cannot reject a usable schema.
  for (const compiler of compilersFor($schema)) {
    try {
      return compiler.compile(rest);
    } catch (err) {
      failure = err instanceof Error ? err : new Error(String(err));
    }
  }
  return failure;
}
