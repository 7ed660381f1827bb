import { Decision } from '@shared/contracts/decision';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { HistoryEntry } from '@shared/contracts/history';
import type { RoundRecord } from '@shared/contracts/round';
import type { HumanAction, HumanAnswer, InterventionKind } from '@shared/contracts/intervention';
import type { SupervisionSpec } from '@shared/contracts/spec';
import { isProtectedEffect, type EffectClass } from '@shared/contracts/tool-effect';
import type { TeacherVerdict } from '@shared/contracts/verdict';
import { PromptBook } from '@shared/learning/learning-context';
import type { TeacherPromptInput } from '../../providers/prompts';
import { agentRunId } from '../../workflow/agent-node';
import { partsOfStudentPrompt, snapshotOf, type PromptParts } from './review-context';

/**
 * The rounds a history recorded that the teacher was asked about (or would be under other rules):
 * read from each agent run's events (an agent spec's run, or an agent node in a workflow run), one
 * `round.completed` record each, with the facts the review policy decided on and, for a round the
 * teacher ruled on, the review's context rebuilt from the recorded, redacted prompt.
 */

export interface RecordedRound {
  run_id: string;
  /** The workflow node invocation, for an agent node inside a workflow run. */
  invocation_id?: string;
  spec_name: string;
  started_at: string;
  round: number;
  record: RoundRecord;
  supervision: Pick<SupervisionSpec, 'enabled' | 'phase' | 'rules'>;
  /** The run the sampler draws for (a replay draws as its original). */
  sampler_run: string;
  /** The validated candidate's decision (undefined when it failed validation or could not be read). */
  decision?: Decision;
  tool?: { name: string; server: string; effect: EffectClass };
  protected: boolean;
  /** The verdict the boundary acted on, when the teacher ruled. */
  verdict?: TeacherVerdict;
  /** The review's context as the teacher's prompt builder takes it (for a round the teacher ruled on). */
  prompt?: TeacherPromptInput;
  /** What a person answered when the round waited for them (an escalation to a person, a confirmation). */
  person?: HumanAction;
  /**
   * The verdict a candidate teacher is compared with, and who gave it: the person's answer where a
   * person decided the round (it is what the boundary acted on: the final word on whether it ran, also
   * over a teacher's escalation or acceptance), else the recorded teacher's verdict. One case per round.
   */
  past?: TeacherVerdict;
  decided_by?: DecidedBy;
  /** The recorded teacher's own verdict on a round a person then decided (it escalated, or accepted a call the tool's confirmation held). */
  teacher_verdict?: TeacherVerdict;
  /** The note the person left with their answer. */
  person_note?: string;
  /** Where that context came from: the round's recorded student prompt, or (none recorded) the run's events. */
  context?: 'recorded_prompt' | 'events';
}

export type DecidedBy = 'teacher' | 'person';

/** A person's answer to a review-like question (an escalation, a tool's confirmation) that decided the round. */
interface PersonAnswer {
  answer: HumanAnswer;
  kind?: InterventionKind;
  decision?: Decision;
  settled_by?: 'person' | 'sticky' | 'expiry';
}

type StartEvent = RunEventOf<'run.started'> | RunEventOf<'agent.started'>;

interface AgentRunEvents {
  start?: StartEvent;
  snapshots: Map<number, RunEventOf<'tools.snapshot'>>;
  committed: HistoryEntry[];
  byRoundKey: Map<number, HistoryEntry>;
  prompts: Map<number, RunEvent & { type: 'learning.example' }>;
  rounds: RoundRecord[];
  answers: Map<number, HumanAction>;
  asked: Map<number, PersonAnswer>;
  requested: Map<number, { kind: InterventionKind; decision?: Decision }>;
}

const fresh = (): AgentRunEvents => ({ snapshots: new Map(), committed: [], byRoundKey: new Map(), prompts: new Map(), rounds: [], answers: new Map(), asked: new Map(), requested: new Map() });

/** The recorded rounds of one run (every agent in it), in order. A replay's run is left out: its verdicts are its original's, answered again. */
export function recordedRounds(events: readonly RunEvent[]): RecordedRound[] {
  const first = events[0];
  if (first === undefined) return [];
  if (first.type === 'run.started' && first.replay_of !== undefined) return [];
  if (first.type === 'workflow.started' && first.replay_of !== undefined) return [];
  const agents = new Map<string, AgentRunEvents>();
  const book = new PromptBook();
  const of = (event: RunEvent) => {
    const key = event.invocation_id ?? '';
    let found = agents.get(key);
    if (!found) {
      found = fresh();
      agents.set(key, found);
    }
    return found;
  };
  for (const event of events) {
    switch (event.type) {
      case 'run.started':
      case 'agent.started':
        of(event).start = event;
        break;
      case 'tools.snapshot':
        of(event).snapshots.set(event.round, event);
        break;
      case 'decision.committed': {
        const agent = of(event);
        const entry: HistoryEntry = { index: event.history_index, round: event.round, decision: event.decision };
        agent.committed.push(entry);
        agent.byRoundKey.set(event.round, entry);
        break;
      }
      case 'tool.executed': {
        const entry = of(event).byRoundKey.get(event.round);
        if (entry) {
          entry.result = event.execution.content;
          if (event.execution.is_error || !event.execution.ok) entry.result_is_error = true;
        }
        break;
      }
      case 'learning.example': {
        const resolved = book.resolve(event);
        if (resolved.ok && event.kind === 'review') of(event).prompts.set(event.round, { ...event, context: resolved.context });
        break;
      }
      case 'intervention.requested':
        of(event).requested.set(event.round, { kind: event.intervention.kind, ...(event.intervention.decision ? { decision: event.intervention.decision } : {}) });
        break;
      case 'intervention.answered': {
        const agent = of(event);
        agent.answers.set(event.round, event.answer.action);
        const asked = agent.requested.get(event.round);
        agent.asked.set(event.round, { answer: event.answer, ...(asked ? { kind: asked.kind } : {}), ...(asked?.decision ? { decision: asked.decision } : {}), ...(event.settled_by ? { settled_by: event.settled_by } : {}) });
        break;
      }
      case 'round.completed':
        of(event).rounds.push(event.record);
        break;
      default:
        break;
    }
  }
  const found: RecordedRound[] = [];
  for (const [key, agent] of agents) {
    const start = agent.start;
    if (!start) continue;
    for (const record of agent.rounds) found.push(roundOf(first.run_id, key, start, agent, record));
  }
  return found;
}

function roundOf(runId: string, invocation: string, start: StartEvent, agent: AgentRunEvents, record: RoundRecord): RecordedRound {
  const { round } = record;
  const parsedDecision = record.validation?.ok === true ? Decision.safeParse(record.candidate.parsed?.raw) : undefined;
  const decision = parsedDecision?.success ? parsedDecision.data : undefined;
  const snapshot = agent.snapshots.get(round);
  const toolName = decision?.decision_type === 'tool_call' ? decision.tool_name : toolNameOf(record.candidate.parsed?.raw);
  const offered = toolName === undefined ? undefined : snapshot?.tools.find((t) => t.name === toolName);
  const tool = offered ? { name: offered.name, server: offered.server, effect: offered.effect } : undefined;
  const base: RecordedRound = {
    run_id: runId,
    ...(invocation !== '' ? { invocation_id: invocation } : {}),
    spec_name: start.spec_name,
    started_at: start.ts,
    round,
    record,
    supervision: start.supervision,
    // The draw the round had: an agent run's own id (or its replay's original); an agent node's is `<workflow run>:<invocation>` (agent-node.ts).
    sampler_run: start.type === 'run.started' && start.replay_of !== undefined ? start.replay_of : invocation !== '' ? agentRunId(runId, invocation) : runId,
    ...(decision ? { decision } : {}),
    ...(tool ? { tool } : {}),
    // A tool the round did not offer, or whose effect nobody recorded, counts as protected (missing metadata is protected).
    protected: toolName !== undefined && (tool === undefined || isProtectedEffect(tool.effect)),
    ...(record.verdict ? { verdict: record.verdict } : {}),
    ...(agent.answers.has(round) ? { person: agent.answers.get(round) } : {}),
  };
  const byPerson = personVerdict(agent.asked.get(round), record.verdict);
  const past = byPerson ?? record.verdict;
  if (!past || !record.candidate.reply || !record.candidate.parsed || !record.validation) return base;
  // A round the teacher ruled on was reviewed; one a person decided with no review recorded (supervision off) is put under the rule its effect would fire.
  if (record.review === undefined && !byPerson) return base;
  const rule = record.review?.rule ?? (base.protected ? 'protected_effect' : 'not_required');
  const example = agent.prompts.get(round);
  const roundOfIndex = (index: number) => agent.committed.find((e) => e.index === index)?.round ?? 0;
  const parts: PromptParts | undefined = example ? partsOfStudentPrompt(example.context, roundOfIndex) : undefined;
  const prompt: TeacherPromptInput = {
    instructions: parts?.instructions ?? '',
    task: parts?.task || start.task,
    snapshot: snapshotOf(snapshot, round, parts),
    history: parts?.history ?? agent.committed.filter((e) => e.round < round),
    review: {
      reply: record.candidate.reply,
      parsed: record.candidate.parsed,
      validation: record.validation,
      rule,
      attempt: 1,
      // The card the teacher saw also said where the values came from (issue 31).
      ...(record.review?.detail !== undefined ? { detail: record.review.detail } : {}),
      ...(record.provenance !== undefined ? { provenance: record.provenance } : {}),
    },
  };
  const decided = byPerson
    ? { past: byPerson, decided_by: 'person' as const, ...(record.verdict ? { teacher_verdict: record.verdict } : {}), ...(agent.asked.get(round)?.answer.note?.trim() ? { person_note: agent.asked.get(round)?.answer.note?.trim() } : {}) }
    : { past, decided_by: 'teacher' as const };
  return { ...base, ...decided, prompt, context: parts ? 'recorded_prompt' : 'events' };
}

/** What a person's answer to an escalation or a tool's confirmation did to the round, as a verdict: approve → accept, approve with edited arguments → replace, reject or stop → block. Other answers (and answers nobody gave: a sticky or expired one) are no review. */
function personVerdict(asked: PersonAnswer | undefined, teacher: TeacherVerdict | undefined): TeacherVerdict | undefined {
  if (!asked || (asked.kind !== 'escalation' && asked.kind !== 'confirmation')) return undefined;
  if (asked.settled_by !== undefined && asked.settled_by !== 'person') return undefined;
  const { answer } = asked;
  const note = answer.note?.trim() ? answer.note.trim().slice(0, 500) : undefined;
  switch (answer.action) {
    case 'approve':
      if (answer.arguments !== undefined && asked.decision?.decision_type === 'tool_call') {
        return { verdict: 'replace', reason_codes: codesOf(teacher), explanation: 'The person approved it with edited arguments.', replacement: { ...asked.decision, arguments: answer.arguments } };
      }
      return { verdict: 'accept', reason_codes: [], explanation: 'The person approved it.' };
    case 'reject':
    case 'stop':
      return { verdict: 'block', reason_codes: codesOf(teacher), explanation: note ?? (answer.action === 'stop' ? 'The person stopped the run here.' : 'The person rejected it.') };
    default:
      return undefined;
  }
}

/** A person gives no reason code: the teacher's that brought it to them, else `other` (a stop needs one). */
const codesOf = (teacher: TeacherVerdict | undefined): TeacherVerdict['reason_codes'] => (teacher && teacher.reason_codes.length > 0 ? teacher.reason_codes : ['other']);

/** A recorded round a candidate teacher can be asked about: its review's context and the verdict it is compared with. */
export const isVerdictCase = (r: RecordedRound): boolean => r.prompt !== undefined && r.past !== undefined;

function toolNameOf(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || !Object.hasOwn(raw, 'tool_name')) return undefined;
  const name = (raw as { tool_name?: unknown }).tool_name;
  return typeof name === 'string' ? name : undefined;
}
