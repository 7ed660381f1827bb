import { randomUUID } from 'node:crypto';
import { Role, TaskState, type AgentCard, type Message, type Part, type SendMessageResult } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { parseJsonText } from '@shared/boundary/parse-candidate';
import { agentPlace, type A2aCalled, type A2aCallOutcome } from '@shared/contracts/a2a-call';
import type { RunEventPayload } from '@shared/contracts/events';
import { maskedArgumentNames } from '@shared/contracts/server-call';
import { AgentCardView, describeAgentCard, type AgentCardCheck } from '@shared/pattern/agent-card';
import { JudgeVerdict, type A2aCaller, type CallerIdentity } from '@shared/pattern/contracts';
import type { JudgeAnswer, JudgeInput } from '@shared/pattern/machine';
import { checkAgentUrl } from '@shared/policy/agent-host';
import { LOCAL_ONLY, type PrivacyPolicy } from '@shared/policy/privacy';
import type { NodeOf } from '@shared/workflow/document';
import type { FetchFn } from '../../providers/http-call';
import { judgeMessages } from './judge-caller';

/**
 * The `a2a` judge of a pattern node (issue 29, seed 002: "LLM and A2A callers work inline"): a
 * remote agent speaking the Agent2Agent protocol (@a2a-js/sdk). Its agent card is read first (name,
 * description, version, skills: recorded with every judgment it gives, shown by `steward validate`).
 * Every request it takes — the card, the message, wherever the card says the agent listens — is
 * checked against the workspace privacy policy before it is sent, and redirects are not followed:
 * a host the policy does not allow never receives anything. The judge is sent what a model judge
 * is sent (judgeMessages: the task as the run's masked inputs wrote it, the member outputs by id),
 * as text and as a data part; its reply (a data part, or text holding JSON) must be the pattern's
 * verdict contract, else the judgment fails in words (A2aJudgeError), never an approval.
 */

export const A2A_JUDGE_FAILURES = ['refused', 'card_unreadable', 'call_failed', 'no_verdict', 'malformed_reply'] as const;
export type A2aJudgeFailure = (typeof A2A_JUDGE_FAILURES)[number];

export class A2aJudgeError extends Error {
  constructor(
    readonly code: A2aJudgeFailure,
    message: string,
  ) {
    super(message);
    this.name = 'A2aJudgeError';
  }
}

export interface A2aDeps {
  privacy?: PrivacyPolicy;
  /** Tests: a fetch that counts what was sent. */
  fetch?: FetchFn;
  /** The run's events: each judgment's privacy-log entry (`a2a.called`) goes here. */
  emit?: (payload: RunEventPayload) => void;
}

/** What left the machine for one agent: requests and their body bytes, counted as they go. */
interface SentTally {
  requests: number;
  bytes: number;
}

const bodyBytes = (body: unknown): number => {
  if (typeof body === 'string') return Buffer.byteLength(body, 'utf8');
  if (body instanceof Uint8Array) return body.byteLength;
  if (body instanceof ArrayBuffer) return body.byteLength;
  return 0;
};

/** fetch that counts each request it lets go (after the policy's check: a refused one never counts). */
function countingFetch(tally: SentTally, base: FetchFn = fetch): FetchFn {
  return (input, init) => {
    tally.requests += 1;
    tally.bytes += bodyBytes(init?.body);
    return base(input, init);
  };
}

/** What Steward shows of an agent card. */
export type AgentCardSummary = AgentCardView;

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));
export const judgeWho = (caller: Pick<A2aCaller, 'url' | 'name'>): string => `the A2A judge ${caller.name !== undefined ? `“${caller.name}” ` : ''}at ${caller.url}`;

/** fetch under the policy: each request's URL is checked before it goes, and a redirect is an error (it could lead anywhere). */
export function policyFetch(policy: PrivacyPolicy, who: string, base: FetchFn = fetch): FetchFn {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const allowed = checkAgentUrl(url, policy, who);
    if (!allowed.ok) return Promise.reject(new A2aJudgeError('refused', allowed.message));
    return base(input, { ...init, redirect: 'error' });
  };
}

/** The agent card at `url` (/.well-known/agent-card.json), under the policy; what Steward shows of it. */
export async function readAgentCard(caller: Pick<A2aCaller, 'url' | 'name'>, deps: A2aDeps = {}): Promise<{ card: AgentCard; summary: AgentCardSummary }> {
  const who = judgeWho(caller);
  const allowed = checkAgentUrl(caller.url, deps.privacy ?? LOCAL_ONLY, who);
  if (!allowed.ok) throw new A2aJudgeError('refused', allowed.message);
  const fetchImpl = policyFetch(deps.privacy ?? LOCAL_ONLY, who, deps.fetch);
  let card: AgentCard;
  try {
    card = await new DefaultAgentCardResolver({ fetchImpl }).resolve(caller.url);
  } catch (err) {
    if (err instanceof A2aJudgeError) throw err;
    throw new A2aJudgeError('card_unreadable', `${who} has no agent card Steward can read at ${caller.url}/.well-known/agent-card.json: ${errorText(err)}`);
  }
  const summary = AgentCardView.safeParse(card);
  if (!summary.success) throw new A2aJudgeError('card_unreadable', `${who} has an agent card without a usable name, description, version or skills: ${summary.error.issues.map((i) => `${i.path.join('.') || 'card'}: ${i.message}`).join('; ')}`);
  return { card, summary: summary.data };
}

const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });

/** The parts of a reply a verdict may be in: the message's, or a task's status message and artifacts. */
function replyParts(result: SendMessageResult): { parts: Part[]; state?: TaskState; said?: string } {
  if ('parts' in result) return { parts: result.parts };
  const statusParts = result.status?.message?.parts ?? [];
  const said = statusParts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join(' ');
  return { parts: [...result.artifacts.flatMap((a) => a.parts), ...statusParts], ...(result.status ? { state: result.status.state } : {}), ...(said ? { said } : {}) };
}

const FINISHED_WELL: ReadonlySet<TaskState> = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_UNSPECIFIED]);

/** The verdict in a reply: its first data part, else its text read as JSON; validated against the verdict contract. */
export function verdictOfReply(result: SendMessageResult, who: string): JudgeVerdict {
  const { parts, state, said } = replyParts(result);
  if (state !== undefined && !FINISHED_WELL.has(state)) {
    throw new A2aJudgeError('no_verdict', `${who} ended its task ${TaskState[state]?.replace('TASK_STATE_', '').toLowerCase().replace(/_/g, ' ') ?? 'unfinished'}${said ? ` (“${said.slice(0, 300)}”)` : ''} without a verdict`);
  }
  const data = parts.find((p) => p.content?.$case === 'data');
  const text = parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
  let candidate: unknown;
  if (data?.content?.$case === 'data') candidate = data.content.value;
  else if (text.trim() !== '') {
    const parsed = parseJsonText(text);
    if (!parsed.ok) throw new A2aJudgeError('malformed_reply', `${who} replied in free text, not with a verdict (“${text.replace(/\s+/g, ' ').slice(0, 200)}”); a judgment is never read out of prose`);
    candidate = parsed.value;
  } else throw new A2aJudgeError('no_verdict', `${who} replied with no text and no data: there is no verdict in it`);
  const verdict = JudgeVerdict.safeParse(candidate);
  if (!verdict.success) {
    throw new A2aJudgeError('malformed_reply', `${who} replied with something that is not a verdict (${verdict.error.issues.map((i) => `${i.path.join('.') || 'verdict'}: ${i.message}`).join('; ')}); nothing was approved`);
  }
  return verdict.data;
}

/** The A2A judges of one node invocation: each agent's card is read once, then asked for each judgment. */
export function createA2aJudge(node: NodeOf<'pattern'>, task: string, deps: A2aDeps): (input: JudgeInput, caller: A2aCaller, signal: AbortSignal) => Promise<JudgeAnswer> {
  const clients = new Map<string, Promise<{ client: Awaited<ReturnType<ClientFactory['createFromAgentCard']>>; summary: AgentCardSummary }>>();
  // Per agent: what left for it so far (its card, each message); a judgment's entry records its own share.
  const tallies = new Map<string, SentTally>();
  const tallyOf = (url: string): SentTally => {
    let tally = tallies.get(url);
    if (!tally) tallies.set(url, (tally = { requests: 0, bytes: 0 }));
    return tally;
  };
  const cards = new Map<string, AgentCardSummary>();
  const clientOf = (caller: A2aCaller) => {
    let made = clients.get(caller.url);
    if (!made) {
      const counted = countingFetch(tallyOf(caller.url), deps.fetch);
      made = (async () => {
        const { card, summary } = await readAgentCard(caller, { ...deps, fetch: counted });
        cards.set(caller.url, summary);
        const fetchImpl = policyFetch(deps.privacy ?? LOCAL_ONLY, judgeWho(caller), counted);
        const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })] });
        try {
          return { client: await factory.createFromAgentCard(card), summary };
        } catch (err) {
          throw new A2aJudgeError('card_unreadable', `${judgeWho(caller)} offers no transport Steward speaks (JSON-RPC or HTTP+JSON): ${errorText(err)}`);
        }
      })();
      // A failure is not kept: the retry after it reads the card again.
      made.catch(() => clients.delete(caller.url));
      clients.set(caller.url, made);
    }
    return made;
  };
  return async (input, caller, signal) => {
    const started_at = new Date().toISOString();
    const who = judgeWho(caller);
    const tally = tallyOf(caller.url);
    const before = { ...tally };
    let sent: A2aCalled['sent'];
    // The privacy log's entry for this judgment, however it ends (a refusal too: nothing left then).
    const record = (outcome: A2aCallOutcome, problem?: string) => {
      const card = cards.get(caller.url);
      deps.emit?.({
        type: 'a2a.called',
        ...agentPlace(caller.url),
        ...(caller.name !== undefined ? { name: caller.name.slice(0, 200) } : {}),
        ...(card ? { agent: { name: card.name.slice(0, 300), version: card.version.slice(0, 100) } } : {}),
        judgment_id: input.judgment_id,
        ...(sent ? { sent } : {}),
        requests: tally.requests - before.requests,
        bytes: tally.bytes - before.bytes,
        outcome,
        ...(problem !== undefined ? { problem: problem.slice(0, 500) } : {}),
      });
    };
    try {
      const answer = await askAgent(input, caller, signal, who, (value) => (sent = value));
      record('answered');
      return { ...answer, started_at };
    } catch (err) {
      record(err instanceof A2aJudgeError && err.code === 'refused' ? 'refused' : 'failed', errorText(err));
      throw err;
    }
  };

  async function askAgent(input: JudgeInput, caller: A2aCaller, signal: AbortSignal, who: string, onSent: (sent: NonNullable<A2aCalled['sent']>) => void): Promise<Omit<JudgeAnswer, 'started_at'>> {
    const { client, summary } = await clientOf(caller);
    const messages = judgeMessages(node, task, input);
    const message: Message = {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [
        textPart(messages.map((m) => m.content).join('\n\n')),
        dataPart({
          judgment_id: input.judgment_id,
          step: input.step,
          iteration: input.iteration,
          output: input.output,
          outputs: input.outputs,
          min_citations: node.judgment.verifier.min_citations,
          must_cite: node.judgment.verifier.must_cite,
          ...(input.problem !== undefined ? { previous_answer_problem: input.problem } : {}),
        }),
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const text = message.parts[0]?.content?.$case === 'text' ? message.parts[0].content.value : '';
    const data = message.parts[1]?.content?.$case === 'data' ? message.parts[1].content.value : {};
    onSent({ text_bytes: Buffer.byteLength(text, 'utf8'), data_fields: maskedArgumentNames(data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : {}) });
    let result: SendMessageResult;
    try {
      result = await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined }, { signal });
    } catch (err) {
      if (err instanceof A2aJudgeError) throw err;
      throw new A2aJudgeError('call_failed', `${who} could not be asked: ${errorText(err)}`);
    }
    const verdict = verdictOfReply(result, who);
    const identity: CallerIdentity = { kind: 'a2a', url: caller.url, agent: { name: summary.name.slice(0, 300), version: summary.version.slice(0, 100) } };
    return { answer: verdict, ended_at: new Date().toISOString(), caller: identity };
  }
}

/**
 * `steward validate`: each A2A judge's agent card, read as a run reads it (under the policy), as a
 * line; a card that cannot be read, or a host the policy refuses, is a problem of the node.
 */
export async function agentCardChecks(graph: { nodes: ReadonlyArray<{ id: string; kind: string }> }, privacy: PrivacyPolicy, deps: Pick<A2aDeps, 'fetch'> = {}): Promise<{ lines: string[]; problems: Array<{ node: string; code: string; message: string }> }> {
  const lines: string[] = [];
  const problems: Array<{ node: string; code: string; message: string }> = [];
  for (const node of graph.nodes) {
    if (node.kind !== 'pattern') continue;
    const callers = (node as NodeOf<'pattern'>).judgment.callers.flatMap((c) => (c.kind === 'a2a' ? [c] : []));
    for (const caller of callers) {
      try {
        const { summary } = await readAgentCard(caller, { privacy, ...deps });
        lines.push(`  judge ${node.id} (A2A at ${caller.url}): ${describeAgentCard(summary)}`);
      } catch (err) {
        problems.push({ node: node.id, code: err instanceof A2aJudgeError && err.code === 'refused' ? 'a2a_judge_refused' : 'a2a_judge_card', message: errorText(err) });
      }
    }
  }
  return { lines, problems };
}

/** The editor's "Check agent card" (judges.agent_card): the card, or why not, in words. */
export async function checkAgentCard(url: string, deps: A2aDeps): Promise<AgentCardCheck> {
  try {
    return { ok: true, card: (await readAgentCard({ url }, deps)).summary };
  } catch (err) {
    return { ok: false, problem: errorText(err) };
  }
}
