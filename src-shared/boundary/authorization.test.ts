import { describe, expect, it } from 'vitest';
import { Authorization, AuthorizationFacts, authorizeDecision, DENIAL_MESSAGES, DENIAL_REASONS } from './authorization';
import type { Decision } from '../contracts/decision';
import { EFFECT_CLASSES, isProtectedEffect } from '../contracts/tool-effect';
import type { OfferedTool } from '../contracts/tool-snapshot';
import { offeredTool } from './testing/fixtures';

const KEY = 'idem-key-0001';
const LEDGERS = ['new', 'executed', 'in_flight'] as const;
const CONFIRMATIONS = ['not_needed', 'granted', 'denied', 'unavailable'] as const;
const KEYS = [KEY, undefined] as const;

const toolCall: Decision = { decision_type: 'tool_call', tool_name: 't', arguments: { a: 1 } };
const CONTROL: Decision[] = [
  { decision_type: 'ask_user', question: 'q' },
  { decision_type: 'present_result', content: 'c' },
  { decision_type: 'request_confirmation', message: 'm' },
  { decision_type: 'reroute', target: 'x', reason: 'r' },
  { decision_type: 'complete', output: '' },
];

const KEPT = [undefined, true] as const;

function allFacts(): AuthorizationFacts[] {
  return KEYS.flatMap((key) =>
    LEDGERS.flatMap((ledger) =>
      CONFIRMATIONS.flatMap((confirmation) =>
        KEPT.map((kept) => ({ ...(key ? { idempotency_key: key } : {}), ledger, confirmation, ...(kept ? { result_kept: kept } : {}) })),
      ),
    ),
  );
}

/** Every tool the registry could describe: each effect class, with and without user confirmation, or none at all. */
function allTools(): (OfferedTool | undefined)[] {
  return [
    undefined,
    ...EFFECT_CLASSES.flatMap((effect) =>
      [false, true].map((requires_user_confirmation) => offeredTool({ name: 't', effect, requires_user_confirmation, schema: { type: 'object' } })),
    ),
  ];
}

describe('execution authorization (exhaustive over decisions, tools, review and facts)', () => {
  it('a control response is always authorized, whatever the facts', () => {
    for (const decision of CONTROL) {
      for (const reviewed of [true, false]) {
        for (const facts of allFacts()) expect(authorizeDecision({ decision, reviewed, facts })).toEqual({ ok: true });
      }
    }
  });

  it('a tool call is authorized exactly when reviewed-if-protected, keyed, and either new and confirmed-if-required or made before with its result kept (given again, never called)', () => {
    let cases = 0;
    for (const tool of allTools()) {
      for (const reviewed of [true, false]) {
        for (const facts of allFacts()) {
          cases++;
          const result = authorizeDecision({ decision: toolCall, tool, reviewed, facts });
          const protectedEffect = isProtectedEffect(tool?.effect.effect ?? 'unknown');
          const needsUser = tool?.effect.requires_user_confirmation ?? false;
          const givenAgain = facts.ledger === 'executed' && facts.result_kept === true;
          const fresh = facts.ledger === 'new' && (!needsUser || facts.confirmation === 'granted');
          const allowed = (!protectedEffect || reviewed) && facts.idempotency_key !== undefined && (fresh || givenAgain);
          expect(result.ok, JSON.stringify({ tool: tool?.effect, reviewed, facts })).toBe(allowed);
          if (result.ok) expect(result.idempotency_key).toBe(KEY);
          // Only a key executed before, with its result kept, is given again; a new one is called, one in flight never.
          if (result.ok) expect(result.recorded_result === true).toBe(givenAgain);
          expect(Authorization.safeParse(result).success).toBe(true);
        }
      }
    }
    expect(cases).toBe(11 * 2 * 48);
  });

  it('denials name the first rule that fails, in the order review, key, ledger, confirmation', () => {
    const write = offeredTool({ name: 't', effect: 'irreversible_write', requires_user_confirmation: true, schema: {} });
    const deny = (reviewed: boolean, facts: AuthorizationFacts) => {
      const r = authorizeDecision({ decision: toolCall, tool: write, reviewed, facts });
      return r.ok ? 'ok' : r.reason;
    };
    expect(deny(false, { ledger: 'executed', confirmation: 'denied' })).toBe('protected_unreviewed');
    expect(deny(true, { ledger: 'executed', confirmation: 'denied' })).toBe('missing_idempotency_key');
    expect(deny(true, { idempotency_key: KEY, ledger: 'executed', confirmation: 'denied' })).toBe('duplicate_execution');
    expect(deny(true, { idempotency_key: KEY, ledger: 'in_flight', confirmation: 'granted' })).toBe('duplicate_execution');
    expect(deny(true, { idempotency_key: KEY, ledger: 'new', confirmation: 'denied' })).toBe('confirmation_denied');
    expect(deny(true, { idempotency_key: KEY, ledger: 'new', confirmation: 'unavailable' })).toBe('confirmation_unavailable');
    expect(deny(true, { idempotency_key: KEY, ledger: 'new', confirmation: 'not_needed' })).toBe('confirmation_unavailable');
    expect(deny(true, { idempotency_key: KEY, ledger: 'new', confirmation: 'granted' })).toBe('ok');
  });

  it('a call made before a stop, its result kept, is given again without asking the person twice; an unreviewed protected one is still refused', () => {
    const write = offeredTool({ name: 't', effect: 'irreversible_write', requires_user_confirmation: true, schema: {} });
    const facts = { idempotency_key: KEY, ledger: 'executed', confirmation: 'not_needed', result_kept: true } as const;
    expect(authorizeDecision({ decision: toolCall, tool: write, reviewed: true, facts })).toEqual({ ok: true, idempotency_key: KEY, recorded_result: true });
    expect(authorizeDecision({ decision: toolCall, tool: write, reviewed: false, facts })).toMatchObject({ ok: false, reason: 'protected_unreviewed' });
    // In flight: its outcome is unknown, so nothing can be given again and it is never called again.
    expect(authorizeDecision({ decision: toolCall, tool: write, reviewed: true, facts: { ...facts, ledger: 'in_flight' } })).toMatchObject({ ok: false, reason: 'duplicate_execution' });
  });

  it('a tool nobody described is protected', () => {
    const r = authorizeDecision({ decision: toolCall, tool: undefined, reviewed: false, facts: { idempotency_key: KEY, ledger: 'new', confirmation: 'not_needed' } });
    expect(r).toEqual({ ok: false, reason: 'protected_unreviewed', message: DENIAL_MESSAGES.protected_unreviewed });
  });

  it('a read needs no review but still needs a fresh key', () => {
    const read = offeredTool({ name: 't', effect: 'read', schema: {} });
    expect(authorizeDecision({ decision: toolCall, tool: read, reviewed: false, facts: { idempotency_key: KEY, ledger: 'new', confirmation: 'not_needed' } })).toEqual({
      ok: true,
      idempotency_key: KEY,
    });
    expect(authorizeDecision({ decision: toolCall, tool: read, reviewed: false, facts: { idempotency_key: KEY, ledger: 'executed', confirmation: 'not_needed' } })).toMatchObject({
      ok: false,
      reason: 'duplicate_execution',
    });
  });

  it('the facts contract is strict and keys are not trivially short', () => {
    expect(AuthorizationFacts.safeParse({ ledger: 'new', confirmation: 'not_needed', extra: 1 }).success).toBe(false);
    expect(AuthorizationFacts.safeParse({ idempotency_key: 'short', ledger: 'new', confirmation: 'not_needed' }).success).toBe(false);
    expect(AuthorizationFacts.safeParse({ ledger: 'done', confirmation: 'not_needed' }).success).toBe(false);
  });

  it('every denial reason has a message', () => {
    expect(Object.keys(DENIAL_MESSAGES).sort()).toEqual([...DENIAL_REASONS].sort());
  });
});
