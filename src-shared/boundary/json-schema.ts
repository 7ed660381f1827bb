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
      // Ajv throws its own sentence; the meta-schema's errors it found are on the compiler.
      failure = new Error(compileErrorWords(err, compiler.errors));
    }
  }
  return failure;
}

/**
 * Why a schema does not compile, in words: which keyword of the schema is wrong and what it must be
 * ("its “properties.age.type” must be one of array, boolean, …"), never Ajv's own
 * "schema is invalid: data/properties/age/type must be equal to one of the allowed values".
 */
function compileErrorWords(err: unknown, errors: unknown): string {
  if (Array.isArray(errors) && errors.length > 0) {
    const all = errors as Array<{ keyword?: string; instancePath?: string; message?: string; params?: { allowedValues?: unknown; type?: unknown } }>;
    // anyOf/oneOf only say that their branches failed: the branch's own error says what.
    const first = all.find((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf') ?? all[0]!;
    const path = first.instancePath ? first.instancePath.slice(1).split('/').join('.') : '';
    const where = path ? `its “${path}”` : 'it';
    const allowed = first.params?.allowedValues;
    const what = Array.isArray(allowed) ? `must be one of ${allowed.map(String).join(', ')}` : first.keyword === 'type' && typeof first.params?.type === 'string' ? `must be ${typeOf(first.params.type)}` : (first.message ?? 'is not valid');
    return `${where} ${what}`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^schema is invalid: /, '');
}

const typeOf = (type: string) => (type === 'array' || type === 'object' || type === 'integer' ? `an ${type}` : `a ${type}`);
