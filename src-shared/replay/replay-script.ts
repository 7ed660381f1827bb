import type { RunEvent, RunEventOf } from '../contracts/events';
import type { ModelReply } from '../contracts/model';
import type { Proposer } from '../contracts/round';
import type { ModelScript, ScriptEntry } from '../contracts/script';
import { MASK } from '../util/mask';
import { roundNumber } from '../contracts/round-number';

/** A run's recorded model answers as a replay script, and what the trace could not give back exactly. */
export interface RecordedScript {
  script: ModelScript;
  /** Where the replay's answers are not the recorded ones (a reply stored trimmed, a shadow not recorded…). */
  gaps: string[];
  /**
   * Answers stored masked or trimmed: a live replay would execute the stored text (a mask for a
   * password, half a file), not what the model said, so live tools are refused for these.
   */
  liveProblems: string[];
}

/** What a model said, as the script provider gives it back: native tool calls as such, else the text. */
export function scriptEntryOf(reply: ModelReply): ScriptEntry {
  const calls = reply.tool_calls;
  return calls.length > 0 ? { tool_calls: calls.map((c) => ({ name: c.name, arguments: c.arguments })) } : { text: reply.text };
}

type Learning = RunEventOf<'learning.example'>;

/**
 * The recorded answers of an agent run, queue by queue, in the order the run asked for them: the
 * student's and the teacher's proposals (repairs included) by who proposed each round, the
 * teacher's verdicts, SCS's committee plans and monitor decisions, and in phase 1 the student's
 * shadow proposals. A call that failed becomes a scripted error, so the queues stay aligned with
 * the rounds. The script provider never looks at the prompt: given these answers the boundary
 * makes the same rulings again, unless tools, settings or the engine changed.
 */
export function recordedScript(events: readonly RunEvent[]): RecordedScript {
  const script: ModelScript = { latency_ms: 0, student: [], teacher: [], committee: [], monitor: [] };
  const gaps: string[] = [];
  const liveProblems: string[] = [];
  const proposers = new Map<number, Proposer>();
  // Phase 1: the student proposes in the shadow of every teacher round; only its learning example records what it said.
  const started = events.find((e): e is RunEventOf<'run.started'> => e.type === 'run.started');
  const shadowing = started !== undefined && started.supervision.enabled && started.supervision.phase === 1;
  const shadows = new Map<number, Learning>();
  for (const e of events) if (e.type === 'learning.example' && e.kind === 'shadow') shadows.set(e.round, e);

  // Masked before trimmed when stored (engine/run-agent.ts), so a reply can be both: the mask is said first.
  const storedNote = (e: RunEvent, reply: ModelReply | undefined, what: string) => {
    const where = `round ${'round' in e && e.round !== undefined ? roundNumber(e.round) : '?'}: ${what} was stored`;
    const problem = reply && JSON.stringify(reply).includes(MASK) ? `${where} with masked values (sensitive arguments and credentials are never stored)` : e.trimmed && e.trimmed.length > 0 ? `${where} trimmed` : undefined;
    if (problem === undefined) return;
    liveProblems.push(problem);
    gaps.push(`${problem}; the replay gets the stored text`);
  };

  for (const e of events) {
    switch (e.type) {
      case 'round.started':
        proposers.set(e.round, e.proposer);
        break;
      case 'candidate.proposed': {
        const proposer = proposers.get(e.round) ?? 'student';
        if (shadowing && proposer === 'teacher' && (e.attempt ?? 0) === 0) script.student.push(shadowEntry(shadows.get(e.round), e.round, gaps));
        script[proposer].push(scriptEntryOf(e.reply));
        storedNote(e, e.reply, `the ${proposer}'s proposal`);
        break;
      }
      case 'verdict.received': {
        const { reply, problem } = e.attempt;
        script.teacher.push(reply ? scriptEntryOf(reply) : { error: calledError(problem ?? 'the teacher call failed') });
        storedNote(e, reply, "the teacher's verdict");
        break;
      }
      case 'round.completed': {
        // A proposal call that failed (a first one or a repair) left no candidate.proposed: its error is the answer to give back.
        const { proposer, reason, message } = e.record;
        if (reason === `${proposer}_error` && message !== undefined) script[proposer].push({ error: calledError(message) });
        break;
      }
      case 'scs.transcript':
        script[e.role].push({ text: e.reply });
        break;
      case 'scs.committee.plan_drafted':
        if (e.error !== undefined) gaps.push(`SCS phase ${e.phase}: a committee call failed (${e.error}); the replay asks the next recorded plan instead`);
        break;
      default:
        break;
    }
  }
  return { script, gaps, liveProblems };
}

/** The boundary says which model failed before the provider's own words: the replay's provider says only those. */
function calledError(message: string): string {
  return message.replace(/^the (student|teacher) model failed( while repairing its decision)?: /, '') || message;
}

function shadowEntry(example: Learning | undefined, round: number, gaps: string[]): ScriptEntry {
  if (example?.student_candidate !== undefined) return { json: example.student_candidate };
  gaps.push(`round ${roundNumber(round)}: the student's shadow proposal was not recorded; the replay gives it an error instead`);
  return { error: 'the shadow proposal of this round was not recorded' };
}
