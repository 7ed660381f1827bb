import { createActor, fromPromise, toPromise } from 'xstate';
import type { AuthorizationFacts } from '../authorization';
import {
  boundaryMachine,
  type AuthorizeInput,
  type BoundaryEmitted,
  type BoundaryInput,
  type CommitInput,
  type DeliverInput,
  type ExecuteInput,
  type ProposeInput,
  type ReviewInput,
} from '../machine';
import type { HistoryEntry } from '../../contracts/history';
import type { ModelReply } from '../../contracts/model';
import type { RoundRecord, ToolExecution } from '../../contracts/round';
import { canonicalJson } from '../../util/canonical-json';
import { fixtureHash } from './fixtures';

/**
 * A host for the boundary that lives in memory, for behavioural tests of the machine:
 * - the models are scripted (the one allowed double: replies or failures, in order, per role);
 * - history, the idempotency ledger and a small file workspace are real data structures, so a test
 *   can look at what actually changed rather than at what the machine said it did.
 * Tools: `read_file`, `write_file`, `send_email` (appends to an outbox), `open_vault`.
 * The state persists across rounds, so retries and replays can be run against the same host.
 */

export type ScriptedAnswer = ModelReply | Error;
export type Confirmation = Exclude<AuthorizationFacts['confirmation'], 'not_needed'>;

export interface InMemoryHostOptions {
  student?: ScriptedAnswer[];
  teacher?: ScriptedAnswer[];
  /** The user's answer when a tool needs confirmation (a shell that cannot ask says `unavailable`). */
  confirm?: Confirmation;
  files?: Record<string, string>;
  /** Make a tool call fail (as a crashed server would) after the host reserved its key. */
  crashTool?: string;
}

export interface HostCalls {
  propose: ProposeInput[];
  review: ReviewInput[];
  authorize: AuthorizeInput[];
  commit: CommitInput[];
  execute: ExecuteInput[];
  deliver: DeliverInput[];
}

export class InMemoryHost {
  readonly history: HistoryEntry[] = [];
  readonly ledger = new Map<string, 'in_flight' | 'executed'>();
  readonly files: Map<string, string>;
  readonly outbox: { to: string; body: string }[] = [];
  readonly delivered: DeliverInput['decision'][] = [];
  readonly calls: HostCalls = { propose: [], review: [], authorize: [], commit: [], execute: [], deliver: [] };
  private readonly student: ScriptedAnswer[];
  private readonly teacher: ScriptedAnswer[];

  constructor(private readonly options: InMemoryHostOptions = {}) {
    this.student = [...(options.student ?? [])];
    this.teacher = [...(options.teacher ?? [])];
    this.files = new Map(Object.entries(options.files ?? {}));
  }

  /** Queue more scripted answers (e.g. for a retried round). */
  script(role: 'student' | 'teacher', ...answers: ScriptedAnswer[]): this {
    (role === 'student' ? this.student : this.teacher).push(...answers);
    return this;
  }

  private next(role: 'student' | 'teacher'): ModelReply {
    const answer = (role === 'student' ? this.student : this.teacher).shift();
    if (answer === undefined) throw new Error(`the ${role} script has no answer left`);
    if (answer instanceof Error) throw answer;
    return answer;
  }

  static keyOf(round: number, server: string, tool: string, args: Record<string, unknown>): string {
    return `idem-${fixtureHash({ round, server, tool, args: canonicalJson(args) })}`;
  }

  private runTool(input: ExecuteInput): { content: string; is_error: boolean } {
    const args = input.decision.arguments;
    const str = (k: string): string => (typeof args[k] === 'string' ? (args[k] as string) : '');
    switch (input.tool.name) {
      case 'read_file': {
        const text = this.files.get(str('path'));
        return text === undefined ? { content: `no such file: ${str('path')}`, is_error: true } : { content: text, is_error: false };
      }
      case 'write_file':
        this.files.set(str('path'), str('content'));
        return { content: `wrote ${str('path')}`, is_error: false };
      case 'send_email':
        this.outbox.push({ to: str('to'), body: str('body') });
        return { content: 'sent', is_error: false };
      case 'open_vault':
        return { content: `vault entry ${str('entry')}`, is_error: false };
      default:
        return { content: `unknown tool ${input.tool.name}`, is_error: true };
    }
  }

  readonly actors = {
    propose: fromPromise<ModelReply, ProposeInput>(async ({ input }) => {
      this.calls.propose.push(input);
      return this.next(input.proposer);
    }),
    review: fromPromise<ModelReply, ReviewInput>(async ({ input }) => {
      this.calls.review.push(input);
      return this.next('teacher');
    }),
    authorize: fromPromise<AuthorizationFacts, AuthorizeInput>(async ({ input }) => {
      this.calls.authorize.push(input);
      const { decision, tool } = input;
      if (decision.decision_type !== 'tool_call' || !tool) return { ledger: 'new', confirmation: 'not_needed' };
      const key = InMemoryHost.keyOf(input.round, tool.server, tool.name, decision.arguments);
      const asked = input.preconfirmed ? 'granted' : (this.options.confirm ?? 'unavailable');
      const confirmation = tool.effect.requires_user_confirmation ? asked : 'not_needed';
      return { idempotency_key: key, ledger: this.ledger.get(key) ?? 'new', confirmation };
    }),
    commit: fromPromise<{ history_index: number }, CommitInput>(async ({ input }) => {
      this.calls.commit.push(input);
      const index = this.history.length;
      this.history.push({ index, round: input.round, decision: input.decision });
      return { history_index: index };
    }),
    execute: fromPromise<ToolExecution, ExecuteInput>(async ({ input }) => {
      this.calls.execute.push(input);
      // Reserved before the call: a crash mid-call leaves the key in flight, never re-executed.
      this.ledger.set(input.idempotency_key, 'in_flight');
      if (this.options.crashTool === input.tool.name) throw new Error(`${input.tool.server} server exited during ${input.tool.name}`);
      const result = this.runTool(input);
      this.ledger.set(input.idempotency_key, 'executed');
      const entry = this.history.at(-1);
      if (entry) Object.assign(entry, { result: result.content, result_is_error: result.is_error });
      return {
        server: input.tool.server,
        tool: input.tool.name,
        arguments: input.decision.arguments,
        idempotency_key: input.idempotency_key,
        ok: true,
        is_error: result.is_error,
        content: result.content,
        duration_ms: 0,
      };
    }),
    deliver: fromPromise<void, DeliverInput>(async ({ input }) => {
      this.calls.deliver.push(input);
      this.delivered.push(input.decision);
    }),
  };

  private machine = boundaryMachine.provide({ actors: this.actors });

  /** Run one round to its end against this host. */
  async runRound(input: BoundaryInput): Promise<{ record: RoundRecord; events: BoundaryEmitted[] }> {
    const events: BoundaryEmitted[] = [];
    const actor = createActor(this.machine, { input });
    actor.on('*', (e) => events.push(e));
    actor.start();
    const record = await toPromise(actor);
    return { record, events };
  }
}
