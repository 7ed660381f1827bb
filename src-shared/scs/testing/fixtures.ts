import { MONITOR_DECISIONS, ScsSettings, type MonitorDecision, type MonitorDecisionKind, type PhasePlan, type RoundFact } from '../contracts';
import type { ScsInput } from '../machine';

/**
 * Test fixtures for the SCS phase controller: settings, the committee's plans and the monitor's
 * answers as scripted models could send them (valid, malformed, of the wrong kind), and the round
 * facts a run loop reports. Pure data, shared by the behavioural tests and the path replay.
 */

/** Settings as a spec would parse them; `mode` is irrelevant to the machine (activation decides). */
export function scsSettings(overrides: Partial<ScsSettings> = {}): ScsSettings {
  return ScsSettings.parse({ mode: 'on', ...overrides });
}

export function scsInput(opts: { settings?: Partial<ScsSettings>; budget?: number; writeWork?: boolean } = {}): ScsInput {
  return { settings: scsSettings(opts.settings), budget: opts.budget ?? 12, writeWork: opts.writeWork ?? true };
}

export const PLANS = {
  /** The first phase of the notes task: read, summarise, write the summary. */
  summarise: {
    phase_goal: 'Write a summary of the meeting notes to summary.md',
    plan: ['Read notes.md', 'Draft a five-line summary', 'Write summary.md', 'Read summary.md back'],
    acceptance_criteria: ['summary.md exists', 'summary.md has at most five lines'],
    allowed_tools: ['read_file', 'write_file'],
    // Checked by the runtime: a result quoting "ENOENT" stops the phase (stop-conditions.ts).
    stop_conditions: ['notes.md is missing ("ENOENT")', 'same failure three times'],
  },
  /** A replan after the first write failed: a different target. */
  replanned: {
    phase_goal: 'Write the summary into the drafts folder instead',
    plan: ['List the drafts folder', 'Write drafts/summary.md', 'Read drafts/summary.md back'],
    acceptance_criteria: ['drafts/summary.md exists'],
    allowed_tools: ['list_directory', 'write_file', 'read_file'],
    stop_conditions: [],
  },
  /** A read-only phase. */
  inspect: {
    phase_goal: 'Find the open action items in the notes',
    plan: ['List the notes folder', 'Read each note', 'Collect the action items'],
    acceptance_criteria: ['every action item is quoted with its file'],
    allowed_tools: ['list_directory', 'read_file'],
    stop_conditions: [],
  },
} as const satisfies Record<string, PhasePlan>;

/** Committee output the machine must refuse: two steps, and a field the contract does not know. */
export const MALFORMED_PLAN: unknown = {
  phase_goal: 'Summarise',
  plan: ['Read notes.md', 'Write summary.md'],
  acceptance_criteria: ['done'],
  allowed_tools: ['write_file'],
  approved: true,
};

/** Monitor output the machine must refuse: not a decision kind, confidence out of range, no reason. */
export const MALFORMED_DECISION: unknown = { decision: 'approve', confidence: 1.7 };

const REASONS = {
  approve_plan: 'the plan reads the notes before writing and checks the result',
  veto_plan: 'the plan overwrites notes.md; write to summary.md instead',
  rethink_plan: 'the plan skips reading the notes; rethink the order',
  accept_phase: 'progress matches the plan',
  reject_phase: 'write_file failed on a read-only path; the plan cannot work',
  finish_allowed: 'summary.md exists and has four lines (evidence cited)',
  finish_rejected: 'the last write_file failed: summary.md does not exist yet',
  extend_steps: 'one step left and the write is the next step of the plan',
  deny_extension: 'no progress in the last rounds',
} as const satisfies Record<MonitorDecisionKind, string>;

/** A well-formed monitor answer of `kind`; `over` changes fields (e.g. `extend_by`, `reason`). */
export function monitorAnswer(kind: MonitorDecisionKind, over: Partial<MonitorDecision> = {}): MonitorDecision {
  return { decision: kind, confidence: 0.82, evidence: ['run-test-1:000004'], reason: REASONS[kind], ...over };
}

export const ALL_ANSWERS: readonly MonitorDecision[] = MONITOR_DECISIONS.map((k) => monitorAnswer(k));

/** The failing call of the seed's regression case: a write to a path the sandbox refuses. */
export const FAILING_CALL = 'write_file {"path":"/etc/summary.md"}';

export function okFact(round: number, over: Partial<RoundFact> = {}): RoundFact {
  return {
    round,
    outcome: 'executed',
    tool: 'read_file',
    call_key: `read_file {"path":"notes-${round}.md"}`,
    failed: false,
    summary: `read notes-${round}.md`,
    event_ids: [`run-test-1:${String(round * 10).padStart(6, '0')}`],
    result: `# Notes ${round}`,
    ...over,
  };
}

/** A round that wrote a file (a successful write-effect call): the file batch counts it. */
export function writeFact(round: number, over: Partial<RoundFact> = {}): RoundFact {
  return okFact(round, {
    tool: 'write_file',
    call_key: `write_file {"path":"out-${round}.md"}`,
    summary: `wrote out-${round}.md`,
    result: 'Successfully wrote',
    changed: { round, tool: 'write_file', target: `out-${round}.md`, result: 'ok (18 chars)', ok: true },
    ...over,
  });
}

export function failedFact(round: number, callKey: string = FAILING_CALL, over: Partial<RoundFact> = {}): RoundFact {
  return {
    round,
    outcome: 'failed',
    reason: 'tool_error',
    tool: callKey.split(' ')[0] ?? 'write_file',
    call_key: callKey,
    failed: true,
    summary: `${callKey} failed: EACCES`,
    event_ids: [`run-test-1:${String(round * 10).padStart(6, '0')}`],
    result: 'Error: EACCES: permission denied',
    changed: { round, tool: callKey.split(' ')[0] ?? 'write_file', target: '/etc/summary.md', result: 'error: EACCES', ok: false },
    ...over,
  };
}

/** A round whose result matches the summarise plan's stop condition ("ENOENT"): the notes are missing. */
export function stoppingFact(round: number, over: Partial<RoundFact> = {}): RoundFact {
  return {
    round,
    outcome: 'executed',
    tool: 'read_file',
    call_key: 'read_file {"path":"notes.md"}',
    failed: true,
    summary: 'read_file → executed: error: ENOENT',
    event_ids: [`run-test-1:${String(round * 10).padStart(6, '0')}`],
    result: "Error: ENOENT: no such file or directory, open 'notes.md'",
    ...over,
  };
}
