import type { RunEvent } from '@shared/contracts/events';
import type { LearningKind } from '@shared/contracts/learning-export';
import type { ChatMessage } from '@shared/contracts/model';
import { encodeContext, type PromptSource } from '@shared/learning/learning-context';
import { eventLog, finishRun, startRun, type EventLog } from './event-fixtures';

/** One agent of a run (a workflow's agent node when `invocation` is set): its rounds, what each teaches, when its system prompt changes. */
export interface AgentPlan {
  invocation?: string;
  rounds: number;
  /** The examples of each round, in order (phase 1: a demonstration, then the student's shadow). */
  kinds: readonly LearningKind[];
  /** From this round on the system prompt differs (an SCS brief): the prompt is stored with a `context_head`. */
  systemChangeAt?: number;
}

export interface ReferencedRun {
  log: EventLog;
  /** Per learning.example event id: the whole prompt the engine gave the student. */
  prompts: Map<string, ChatMessage[]>;
}

/** Agent `a`'s prompt at `round`: system prompt, task, then the canonical history of the rounds before. */
function promptAt(plan: AgentPlan, a: number, round: number): ChatMessage[] {
  const changed = plan.systemChangeAt !== undefined && round >= plan.systemChangeAt;
  const history = Array.from({ length: round }, (_, i): ChatMessage[] => [
    { role: 'assistant', content: `{"decision_type":"tool_call","tool_name":"read_text_file","arguments":{"path":"notes/${a}-${i}.md"}}` },
    { role: 'tool', content: `notes ${a}.${i}: ${'a line of notes. '.repeat(4)}` },
  ]).flat();
  return [{ role: 'system', content: changed ? `Agent ${a} keeps notes. SCS phase 2.` : `Agent ${a} keeps notes.` }, { role: 'user', content: `Task ${a}: tidy the notes` }, ...history];
}

/**
 * A run whose learning examples store their prompts as the engine writes them: each only what is new since
 * its agent's previous example (`copied`: whole, as traces before references did). Agents take their rounds in
 * turn, so a workflow run's nodes interleave as they do when run in parallel.
 */
export function referencedRun(runId: string, agents: readonly AgentPlan[], options: { copied?: boolean } = {}): ReferencedRun {
  const log = eventLog(runId);
  startRun(log);
  const prompts = new Map<string, ChatMessage[]>();
  const previous: Array<PromptSource | undefined> = agents.map(() => undefined);
  const rounds = Math.max(0, ...agents.map((p) => p.rounds));
  for (let round = 0; round < rounds; round += 1) {
    agents.forEach((plan, a) => {
      if (round >= plan.rounds) return;
      const context = promptAt(plan, a, round);
      for (const kind of plan.kinds) {
        const encoded = options.copied ? { context } : encodeContext(previous[a], context);
        const event = log.add({
          type: 'learning.example',
          kind,
          round,
          ...encoded,
          ...(plan.invocation !== undefined ? { invocation_id: plan.invocation } : {}),
          ...(kind === 'demonstration' ? {} : { student_candidate: { decision_type: 'complete', output: `student ${a}.${round}` } }),
          ...(kind === 'review' ? { verdict: round % 3 === 1 ? { verdict: 'replace', reason_codes: ['other'], explanation: 'x', replacement: { decision_type: 'complete', output: 'ok' } } : { verdict: 'accept', reason_codes: [], explanation: 'x' } } : {}),
          final_decision: { decision_type: 'complete', output: 'ok' },
          reason_codes: [],
          agreement: round % 3 !== 1,
          models: { student: 'replay', teacher: 'replay' },
        } as Parameters<EventLog['add']>[0]);
        prompts.set(event.id, context);
        previous[a] = { round, kind, context };
      }
    });
  }
  finishRun(log, 'completed', rounds, 'ok');
  return { log, prompts };
}

/** The learning.example events of a list of events. */
export function learningEvents(events: readonly RunEvent[]): RunEvent[] {
  return events.filter((e) => e.type === 'learning.example');
}
