import { z } from 'zod';
import { Decision } from './decision';
import { ReasonCode } from './verdict';
import { PatternJudgmentAsk } from '../pattern/human-ask';
import { Verdict } from '../supervisor/contracts';
import { PersonEscalation } from '../supervisor/person-escalation';
import { ArgumentProvenance } from '../boundary/provenance';
import { ServerInputShown } from './server-input';

/**
 * A run waiting for a person (DESIGN.md §3): the teacher escalated to human handling, a tool that
 * requires the user's confirmation was selected, the student asked the person a question
 * (`ask_user`) or for a yes/no (`request_confirmation`), or a decision was blocked and the spec says
 * to ask the person how to go on (on_block `ask_user`). The run is persisted in this state and
 * resumes when the person answers — also after the app restarts, in the app or the CLI.
 */
export const INTERVENTION_KINDS = ['escalation', 'confirmation', 'ask_user', 'request_confirmation', 'blocked', 'pattern_judgment', 'supervisor_escalation', 'server_input'] as const;
export const InterventionKind = z.enum(INTERVENTION_KINDS);
export type InterventionKind = z.infer<typeof InterventionKind>;

export const INTERVENTION_KIND_LABELS = {
  escalation: 'Teacher escalated',
  confirmation: 'Confirmation needed',
  ask_user: 'The agent asks you',
  request_confirmation: 'The agent asks yes or no',
  blocked: 'Blocked: how to go on?',
  pattern_judgment: 'Judge the pattern’s output',
  supervisor_escalation: 'A node failed: your verdict',
  server_input: 'A tool asks you',
} satisfies Record<InterventionKind, string>;

/**
 * `reject`: an agent proposed the decision, so it is told why and proposes again. `decline`: nobody
 * proposed it (a workflow's tool node calls with the author's arguments), so nobody can try again:
 * the call does not run and the node ends declined. `stop`: the whole run ends, cancelled by the person.
 * `escalate`: a person's judgment of a pattern ends its loop for someone to look at. `expired`: never
 * offered; the host's timer gives it once a judgment's expiry has passed (its fallback judges).
 */
export const HUMAN_ACTIONS = ['approve', 'reject', 'decline', 'takeover', 'stop', 'reply', 'yes', 'no', 'escalate', 'expired', 'verdict', 'cancel'] as const;
export const HumanAction = z.enum(HUMAN_ACTIONS);
export type HumanAction = z.infer<typeof HumanAction>;

export const HUMAN_ACTION_LABELS = {
  approve: 'Approve and run it',
  reject: 'Reject; let the agent try again',
  decline: 'Don’t run it',
  takeover: 'Let the teacher take over',
  stop: 'Stop the run',
  reply: 'Reply to the agent',
  yes: 'Yes',
  no: 'No',
  escalate: 'Escalate; the pattern stops',
  expired: 'Expired unanswered',
  verdict: 'Your verdict',
  cancel: 'Dismiss without answering',
} satisfies Record<HumanAction, string>;

/** What each answer does, in a sentence (the app's buttons' hints, the CLI's answer lines). */
export const HUMAN_ACTION_HINTS = {
  approve: 'The decision runs as shown.',
  reject: 'Nothing runs; the agent is told why (with your note) and proposes again in its next round.',
  decline: 'Nothing runs; this step ends declined, and the run’s outcome says you declined it (with your note).',
  takeover: 'The teacher decides the next rounds instead.',
  stop: 'The run ends here, cancelled by you; nothing runs.',
  reply: 'The agent gets your reply and goes on.',
  yes: 'The agent is told yes and goes on.',
  no: 'The agent is told no and goes on.',
  escalate: 'The pattern stops here and reports the escalation.',
  expired: 'The judgment expired; its fallback takes it.',
  verdict: 'The supervised node goes on as you decided.',
  cancel: 'The server is told you dismissed its question without choosing; it decides how its call ends.',
} satisfies Record<HumanAction, string>;

/** A tool's question (`server_input`): what each answer does to the call that waits for it. */
export const SERVER_INPUT_HINTS = {
  approve: 'Your answers go to the server, and its call goes on with them.',
  decline: 'The server is told you declined; it decides how its call ends.',
  cancel: HUMAN_ACTION_HINTS.cancel,
  stop: 'The run ends here, cancelled by you; the server is not asked again.',
} as const satisfies Partial<Record<HumanAction, string>>;

/** An answer's hint for this question: a rejection says how many more tries the agent has, and what happens after. */
export function answerHint(action: HumanAction, intervention: Pick<Intervention, 'rounds_left'> & { kind?: InterventionKind }): string {
  if (intervention.kind === 'server_input' && Object.hasOwn(SERVER_INPUT_HINTS, action)) return SERVER_INPUT_HINTS[action as keyof typeof SERVER_INPUT_HINTS];
  const left = intervention.rounds_left;
  if (action !== 'reject' || left === undefined) return HUMAN_ACTION_HINTS[action];
  return `${HUMAN_ACTION_HINTS.reject} It has ${left === 1 ? '1 round' : `${left} rounds`} left; when they are used up, the run stops (Round limit reached).`;
}

/** The answers that carry a note: said back to the agent (reject, yes, no), or kept as why the call did not run (decline). */
export const NOTE_ACTIONS: ReadonlySet<HumanAction> = new Set(['reject', 'decline', 'yes', 'no']);

/** How long a person's reply may be: it goes into the next prompt, the trace and the history. */
export const REPLY_MAX_LENGTH = 4000;

export const Intervention = z
  .object({
    id: z.string().min(8),
    run_id: z.string(),
    round: z.number().int().nonnegative(),
    kind: InterventionKind,
    /** The decision waiting for the person: the escalated candidate, or the tool call to confirm. */
    decision: Decision.optional(),
    /** Values of the decision's arguments that came from earlier tool results, with their sources (issue 31). */
    provenance: z.array(ArgumentProvenance).optional(),
    /** Why a person is asked: the teacher's explanation, or the tool's confirmation requirement. */
    reason: z.string(),
    reason_codes: z.array(ReasonCode).default([]),
    /** The answers the person may give, in the order to show them. */
    options: z.array(HumanAction).min(1),
    requested_at: z.string(),
    /** A pattern node's judgment (`pattern_judgment`): the outputs to judge and what a verdict cites. */
    judgment: PatternJudgmentAsk.optional(),
    /** A supervised workflow node that failed (`supervisor_escalation`): the escalation and what the run needs to go on. */
    supervision: PersonEscalation.optional(),
    /**
     * An agent's question: the rounds it has left after this one. A rejection uses this round, and the
     * agent proposes again in the next; with none left nobody can try again, so `reject` (and
     * `takeover`) are not offered: approve it or stop the run.
     */
    rounds_left: z.number().int().nonnegative().optional(),
    /** An MCP server's input request mid-call (`server_input`, issue 30): its questions; `decision` is the call that waits. */
    server_input: ServerInputShown.optional(),
  })
  .strict();
export type Intervention = z.infer<typeof Intervention>;

export const HumanAnswer = z
  .object({
    action: HumanAction,
    /** Said back to the agent on reject, yes or no; on decline, why the call did not run (the run's outcome says it). Recorded. */
    note: z.string().max(2000).optional(),
    /** The person's reply to a question (`reply` only): the agent's next round sees it. */
    text: z.string().trim().min(1).max(REPLY_MAX_LENGTH).optional(),
    /**
     * Approve with edits (`approve` of a tool call only): the arguments the person wants instead. They
     * pass the same validation against the round's tools, or the answer is refused. For a tool's
     * question (`server_input`): the form's answers, checked against its fields.
     */
    arguments: z.record(z.string(), z.unknown()).optional(),
    /** A pattern judgment's evidence: the member outputs (by id) the approval or rejection cites. */
    evidence: z.array(z.string().min(1).max(200)).max(50).optional(),
    /** A person supervising a workflow (`verdict` only): retry, skip, substitute a value, end_stream or fail, with a reason. */
    verdict: Verdict.optional(),
  })
  .strict()
  .refine((a) => (a.action === 'reply') === (a.text !== undefined), { message: 'a reply needs its text, and only a reply has text', path: ['text'] })
  .refine((a) => a.arguments === undefined || a.action === 'approve', { message: 'only an approval may carry edited arguments', path: ['arguments'] })
  .refine((a) => a.evidence === undefined || a.action === 'approve' || a.action === 'reject', { message: 'only an approval or a rejection cites evidence', path: ['evidence'] })
  .refine((a) => (a.action === 'verdict') === (a.verdict !== undefined), { message: 'a verdict answer needs its verdict, and only it has one', path: ['verdict'] });
export type HumanAnswer = z.infer<typeof HumanAnswer>;
