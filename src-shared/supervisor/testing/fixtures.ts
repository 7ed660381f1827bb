import { SupervisorSettings, type Escalation, type SupervisorSettingsInput, type Verdict } from '../contracts';
import type { SupervisorIdentity } from '../cost';
import { buildEscalation, type EscalationFacts } from '../escalation';
import { emptyLedger, type SupervisorLedger } from '../ledger';
import type { SupervisorInput } from '../machine';

/** Test fixtures for the supervisor kernel: escalations built the real way, settings, identities. */

export const NOW = '2026-12-01T10:00:00.000Z';

/** A retry-safe, cost-free failure with a candidate and a covering validator: every non-stream action is allowed. */
export function escalationFacts(overrides: Partial<EscalationFacts> = {}): EscalationFacts {
  return {
    node: 'extract',
    lineage: [{ iterate: 'each', index: 4 }],
    detail: 'the model returned invalid JSON',
    failure_signature: { code: 'invalid_output' },
    candidate_output: { output: '{"name": "Ada"' },
    attempt: 2,
    retry_safe: true,
    spent_usd: 0,
    created_assets: [],
    has_candidate: true,
    validator_covers_output: true,
    streaming: false,
    emitted: false,
    now: NOW,
    ...overrides,
  };
}

export function escalation(overrides: Partial<EscalationFacts> = {}): Escalation {
  return buildEscalation(escalationFacts(overrides), []);
}

export const CLOUD: SupervisorIdentity = { kind: 'model', label: 'openai:gpt-test', local: false };
export const LOCAL: SupervisorIdentity = { kind: 'model', label: 'ollama:qwen3:4b', local: true };
export const PERSON: SupervisorIdentity = { kind: 'person' };

/** $1 per million input tokens, $4 per million output: a turn reserves about a cent. */
export const PRICING = { 'openai:gpt-test': { input_per_mtok_usd: 1, output_per_mtok_usd: 4 } };

export function settings(overrides: SupervisorSettingsInput = {}): SupervisorSettings {
  return SupervisorSettings.parse({
    enabled: true,
    who: { kind: 'model', model: { provider: 'script' }, decision_timeout_ms: 30_000 },
    max_decisions: 5,
    max_retries: 1,
    pricing: PRICING,
    ...overrides,
  });
}

export function supervisorInput(opts: { escalation?: Escalation; settings?: SupervisorSettingsInput; ledger?: Partial<SupervisorLedger>; who?: SupervisorIdentity } = {}): SupervisorInput {
  return {
    escalation: opts.escalation ?? escalation(),
    settings: settings(opts.settings),
    ledger: { ...emptyLedger(), ...opts.ledger },
    who: opts.who ?? CLOUD,
  };
}

/** One valid verdict of each action. */
export const VERDICTS = {
  retry: { action: 'retry', reason: 'a transient rate limit' },
  skip: { action: 'skip', reason: 'a poisoned item' },
  substitute: { action: 'substitute', value: { output: '{"name": "Ada"}' }, reason: 'closed the JSON' },
  end_stream: { action: 'end_stream', reason: 'keep what streamed' },
  fail: { action: 'fail', reason: 'cannot recover' },
} as const satisfies Record<Verdict['action'], Verdict>;
