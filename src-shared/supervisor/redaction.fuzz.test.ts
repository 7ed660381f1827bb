import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MASK } from '../util/mask';
import { buildEscalation, type EscalationFacts } from './escalation';
import { isSensitiveFieldName, redactForEscalation } from './redaction';

/**
 * Redaction while building an escalation: a registry secret planted anywhere (values, text, keys,
 * JSON inside text, the candidate output) never reaches the record; credential-named fields are
 * masked; count and people fields that merely contain a fragment (`max_tokens`, `author`) are not.
 */

const SENSITIVE_NAMES = ['api_key', 'apiKey', 'X-Api-Key', 'password', 'db_password', 'access_token', 'accessToken', 'token', 'Authorization', 'auth', 'client_secret', 'secret', 'private_key', 'refresh_token'];
const INNOCENT_NAMES = ['max_tokens', 'maxTokens', 'prompt_tokens', 'completion_tokens', 'token_count', 'author', 'authors', 'authored_by', 'key', 'keys', 'monkey', 'tokenizer', 'secretary_name', 'passage'];

const secretArb = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), minLength: 6, maxLength: 40 });
const fillerArb = fc.string({ unit: fc.constantFrom(...'abc xyz.-_:/{}"'), maxLength: 12 });

/** A JSON value with the secrets planted in strings, keys and JSON text, at any depth. */
function plantedArb(secrets: string[]): fc.Arbitrary<unknown> {
  const planted = fc.tuple(fillerArb, fc.constantFrom(...secrets), fillerArb).map(([a, s, b]) => `${a}${s}${b}`);
  const leaf = fc.oneof(planted, fc.constantFrom(...secrets), fc.integer(), fc.boolean(), fc.constant(null), fillerArb);
  const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('tree'), { maxLength: 4 }),
      fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), planted), tie('tree'), { maxKeys: 4 }),
      tie('tree').map((v) => JSON.stringify(v)),
    ),
  }));
  return tree;
}

function facts(overrides: Partial<EscalationFacts> = {}): EscalationFacts {
  return {
    node: 'summarize',
    lineage: [{ iterate: 'each', index: 3 }],
    detail: 'it broke',
    failure_signature: { http_status: 429 },
    attempt: 1,
    retry_safe: true,
    spent_usd: 0,
    created_assets: [],
    has_candidate: false,
    validator_covers_output: false,
    streaming: false,
    emitted: false,
    now: '2026-12-01T10:00:00.000Z',
    ...overrides,
  };
}

describe('redaction while building an escalation (property)', () => {
  it('a registry secret planted anywhere in the detail, the candidate output or the assets never appears in the escalation', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(secretArb, { minLength: 1, maxLength: 3 }).chain((secrets) => fc.tuple(fc.constant(secrets), plantedArb(secrets), plantedArb(secrets), plantedArb(secrets))),
        ([secrets, detail, candidate, asset]) => {
          const e = buildEscalation(
            facts({ detail: `failed on ${JSON.stringify(detail)}`.slice(0, 3000), candidate_output: candidate, has_candidate: true, created_assets: [JSON.stringify(asset).slice(0, 400)] }),
            secrets,
          );
          const text = JSON.stringify(e);
          for (const s of secrets) expect(text).not.toContain(s);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('credential-named fields are masked at any depth; max_tokens, author and their kin keep their values', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SENSITIVE_NAMES),
        fc.constantFrom(...INNOCENT_NAMES),
        fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.integer()),
        fc.oneof(fc.string({ maxLength: 20 }), fc.integer()),
        fc.nat({ max: 3 }),
        (sensitive, innocent, secretValue, keptValue, depth) => {
          let value: unknown = { [sensitive]: secretValue, [innocent]: keptValue };
          for (let d = 0; d < depth; d++) value = { nested: [value] };
          let out = redactForEscalation(value, []) as Record<string, unknown>;
          for (let d = 0; d < depth; d++) out = (out.nested as unknown[])[0] as Record<string, unknown>;
          expect(out[sensitive]).toBe(MASK);
          expect(out[innocent]).toEqual(keptValue);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('credentials written into free text are masked by name, counts are not', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SENSITIVE_NAMES), secretArb, fc.integer({ min: 1, max: 100_000 }), fc.constantFrom('=', ': ', '":"', '= '), (name, secret, tokens, sep) => {
        const text = redactForEscalation(`request failed: ${name}${sep}${secret} max_tokens=${tokens} author=ada`, []);
        expect(text).not.toContain(secret);
        expect(text).toContain(`max_tokens=${tokens}`);
        expect(text).toContain('author=ada');
      }),
      { numRuns: 300 },
    );
  });
});

describe('sensitive field names', () => {
  it.each(SENSITIVE_NAMES)('%s is a credential', (name) => expect(isSensitiveFieldName(name)).toBe(true));
  it.each(INNOCENT_NAMES)('%s is not', (name) => expect(isSensitiveFieldName(name)).toBe(false));

  it('a bearer token in an error message is masked', () => {
    expect(redactForEscalation('401 with header Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig', [])).toBe(`401 with header Bearer ${MASK}`);
  });

  it('a long run of name characters (a base64 blob in a model output) is redacted, and a name after it still masks its value', () => {
    // Not timed (bench/shared-scale.ts times it at 200,000 and 400,000 characters) and not counted (the work is the native
    // regex engine's): the unbounded name scan this replaced took some 2·10^10 steps here, far past the test timeout.
    const blob = 'QUJD'.repeat(50_000);
    expect(redactForEscalation(`${blob} password=hunter2x`, [])).toBe(`${blob} password=${MASK}`);
  });
});
