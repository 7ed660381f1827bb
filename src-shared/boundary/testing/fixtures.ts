import type { AuthorizationFacts } from '../authorization';
import type { BoundaryInput, BoundarySupervision } from '../machine';
import type { Decision } from '../../contracts/decision';
import type { ModelReply, ModelToolCall } from '../../contracts/model';
import type { ToolExecution } from '../../contracts/round';
import type { EffectClass } from '../../contracts/tool-effect';
import type { OfferedTool, ToolSnapshot } from '../../contracts/tool-snapshot';
import type { TeacherVerdict } from '../../contracts/verdict';
import { canonicalJson } from '../../util/canonical-json';

/**
 * Test fixtures for the decision boundary: tools as a round would snapshot them, model replies a
 * student or teacher could send, and the facts a host could gather. Pure data, shared by the path
 * replay and the behavioural tests so both speak about the same world.
 */

/** FNV-1a over canonical JSON: a stable schema hash without Node's crypto (src-shared is pure). */
export function fixtureHash(value: unknown): string {
  let h = 0x811c9dc5;
  for (const ch of canonicalJson(value)) {
    h ^= ch.codePointAt(0) ?? 0;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `fnv1a-${h.toString(16).padStart(8, '0')}`;
}

export function offeredTool(opts: {
  name: string;
  server?: string;
  effect: EffectClass;
  schema: Record<string, unknown>;
  requires_user_confirmation?: boolean;
  sensitive_arguments?: string[];
}): OfferedTool {
  return {
    name: opts.name,
    server: opts.server ?? 'fs',
    description: `${opts.name} (fixture)`,
    input_schema: opts.schema,
    schema_hash: fixtureHash({ name: opts.name, schema: opts.schema }),
    effect: {
      effect: opts.effect,
      requires_user_confirmation: opts.requires_user_confirmation ?? false,
      idempotency_supported: false,
      sensitive_arguments: opts.sensitive_arguments ?? [],
    },
    effect_source: 'user',
  };
}

/** A read tool whose schema is draft-07 (the MCP default). */
export const READ_FILE = offeredTool({
  name: 'read_file',
  effect: 'read',
  schema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { path: { type: 'string', minLength: 1 } },
    required: ['path'],
    additionalProperties: false,
  },
});

/** A protected (reversible write) tool whose schema is JSON Schema 2020-12. */
export const WRITE_FILE = offeredTool({
  name: 'write_file',
  effect: 'reversible_write',
  schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { path: { type: 'string', minLength: 1 }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
});

/** Protected and needing the user's confirmation. */
export const SEND_EMAIL = offeredTool({
  name: 'send_email',
  server: 'mail',
  effect: 'external_communication',
  requires_user_confirmation: true,
  sensitive_arguments: ['to'],
  schema: {
    type: 'object',
    properties: { to: { type: 'string' }, body: { type: 'string' } },
    required: ['to', 'body'],
    additionalProperties: false,
  },
});

/** Not protected (a read), yet the registry says the user must confirm it. */
export const OPEN_VAULT = offeredTool({
  name: 'open_vault',
  server: 'vault',
  effect: 'read',
  requires_user_confirmation: true,
  schema: { type: 'object', properties: { entry: { type: 'string' } }, required: ['entry'], additionalProperties: false },
});

export function snapshotOf(tools: readonly OfferedTool[], round = 1): ToolSnapshot {
  return { round, tools: [...tools], hash: fixtureHash(tools.map((t) => [t.name, t.server, t.schema_hash])) };
}

export const FILE_TOOLS = snapshotOf([READ_FILE, WRITE_FILE]);
export const CONFIRM_TOOLS = snapshotOf([READ_FILE, WRITE_FILE, SEND_EMAIL, OPEN_VAULT]);

/** Phase 3 (risk-gated), default rules, no student repairs (tests that want repairs ask for them). */
export const DEFAULT_SUPERVISION: BoundarySupervision = {
  enabled: true,
  phase: 3,
  rules: { validation_failed: true, sample_rate: 0, sample_seed: 0, complete: false, tools: [] },
  max_verdict_attempts: 2,
  max_repair_rounds: 0,
};

type SupervisionOverrides = Partial<Omit<BoundarySupervision, 'rules'>> & { rules?: Partial<BoundarySupervision['rules']> };

export function boundaryInput(overrides: Partial<Omit<BoundaryInput, 'supervision'>> & { supervision?: SupervisionOverrides } = {}): BoundaryInput {
  const { supervision, ...rest } = overrides;
  return {
    round: 1,
    proposer: 'student',
    snapshot: FILE_TOOLS,
    ...rest,
    supervision: { ...DEFAULT_SUPERVISION, ...supervision, rules: { ...DEFAULT_SUPERVISION.rules, ...supervision?.rules } },
  };
}

// ── model replies ──────────────────────────────────────────────────────────────────────────────

export const toolCallReply = (calls: ModelToolCall[], model = 'scripted:student'): ModelReply => ({ text: '', tool_calls: calls, model });
export const textReply = (text: string, model = 'scripted:student'): ModelReply => ({ text, tool_calls: [], model });
export const jsonReply = (value: unknown, model = 'scripted:student'): ModelReply => textReply(JSON.stringify(value), model);

/** What a student (or a proposing teacher) might answer in a round. */
export const PROPOSALS = {
  read: toolCallReply([{ name: 'read_file', arguments: { path: 'notes.txt' } }]),
  write: toolCallReply([{ name: 'write_file', arguments: { path: 'notes.txt', content: 'student draft' } }]),
  write_bad_args: toolCallReply([{ name: 'write_file', arguments: { path: 42 } }]),
  unoffered: toolCallReply([{ name: 'delete_everything', arguments: {} }]),
  parallel: toolCallReply([
    { name: 'read_file', arguments: { path: 'a.txt' } },
    { name: 'read_file', arguments: { path: 'b.txt' } },
  ]),
  unparseable: textReply('I think I should read the file first.'),
  complete: jsonReply({ decision_type: 'complete', output: 'all done' }),
  send_email: toolCallReply([{ name: 'send_email', arguments: { to: 'boss@example.com', body: 'student email' } }]),
  open_vault: toolCallReply([{ name: 'open_vault', arguments: { entry: 'bank' } }]),
} as const satisfies Record<string, ModelReply>;
export type ProposalName = keyof typeof PROPOSALS;

/** Teacher replacements: valid ones differ from every student proposal, so I1 can tell them apart. */
export const REPLACEMENTS = {
  read: { decision_type: 'tool_call', tool_name: 'read_file', arguments: { path: 'teacher-choice.txt' } },
  write: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'notes.txt', content: 'teacher fix' } },
  ask: { decision_type: 'ask_user', question: 'Which file do you mean?' },
  send_email: { decision_type: 'tool_call', tool_name: 'send_email', arguments: { to: 'team@example.com', body: 'teacher email' } },
  bad_args: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 7 } },
  unoffered: { decision_type: 'tool_call', tool_name: 'format_disk', arguments: {} },
  parallel: [
    { decision_type: 'tool_call', tool_name: 'read_file', arguments: { path: 'x.txt' } },
    { decision_type: 'tool_call', tool_name: 'read_file', arguments: { path: 'y.txt' } },
  ],
} as const;
export type ReplacementName = keyof typeof REPLACEMENTS;

export const verdictReply = (verdict: TeacherVerdict | Record<string, unknown>): ModelReply => jsonReply(verdict, 'scripted:teacher');

export const VERDICTS = {
  accept: verdictReply({ verdict: 'accept', reason_codes: [], explanation: 'The candidate is right.' }),
  block: verdictReply({ verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'This would overwrite the user notes.' }),
  escalate: verdictReply({ verdict: 'escalate', reason_codes: ['other'], explanation: 'A human should decide this.' }),
  malformed: textReply('Looks fine to me!', 'scripted:teacher'),
} as const satisfies Record<string, ModelReply>;

export function replaceReply(name: ReplacementName): ModelReply {
  return verdictReply({
    verdict: 'replace',
    reason_codes: ['wrong_tool'],
    explanation: `Use the ${name} replacement instead.`,
    replacement: REPLACEMENTS[name],
  });
}

// ── host facts ─────────────────────────────────────────────────────────────────────────────────

export const IDEMPOTENCY_KEY = 'idem-round1-0001';

export function facts(ledger: AuthorizationFacts['ledger'], confirmation: AuthorizationFacts['confirmation'], key: string | undefined = IDEMPOTENCY_KEY): AuthorizationFacts {
  return key === undefined ? { ledger, confirmation } : { idempotency_key: key, ledger, confirmation };
}

/** What an MCP server reports for a call of `decision` (the host's execution record). */
export function executionOf(decision: Decision, tool: OfferedTool, key: string, outcome: { is_error: boolean; content?: string }): ToolExecution {
  return {
    server: tool.server,
    tool: tool.name,
    arguments: decision.decision_type === 'tool_call' ? decision.arguments : {},
    idempotency_key: key,
    ok: true,
    is_error: outcome.is_error,
    content: outcome.content ?? (outcome.is_error ? 'the tool reported an error' : 'ok'),
    duration_ms: 1,
  };
}
