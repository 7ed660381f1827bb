import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { FEEDBACK_HEADING } from '@shared/pattern/prompt';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import { WorkflowGraph } from '@shared/workflow/document';
import { SCRIPTED_JUDGE_CARD, startScriptedA2aJudge, type JudgmentRequestData, type ScriptedA2aJudge, type ScriptedReply } from '../../../test-support/scripted-a2a-judge';
import { MASK } from '@shared/util/mask';
import { plantedKeychain } from '../../../test-support/planted-keychain';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import { runSpans } from '../../otlp/trace-to-spans';
import { runWorkflow } from '../run-workflow';
import { A2aJudgeError, readAgentCard, verdictOfReply } from './a2a-judge';

/**
 * The `a2a` judge (issue 29, seed 002): a real A2A server (@a2a-js/sdk over express, on loopback)
 * whose agent is a scripted judge — the double at the model boundary, like the members' replay
 * scripts. The pattern runs through the real workflow run and executor.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function judgeServer(script: ScriptedReply[]): Promise<ScriptedA2aJudge> {
  const server = await startScriptedA2aJudge(script);
  cleanups.push(() => server.close());
  return server;
}

const complete = (output: string) => ({ json: { decision_type: 'complete', output } });
const cite = (d: JudgmentRequestData) => d.outputs.map((o) => o.id);
const reject = (feedback: string): ScriptedReply => (d) => ({ data: { verdict: 'rejected', feedback, evidence: cite(d) } });
const approve: ScriptedReply = (d) => ({ data: { verdict: 'approved', evidence: cite(d) } });

function graph(url: string, drafts: string[]): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'a2a-judged',
    name: 'A2A judged',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] },
      {
        id: 'p',
        kind: 'pattern',
        type: 'SUPERVISOR',
        task: 'Write a short design note about {{topic}}.',
        inputs: [{ name: 'topic', type: 'text' }],
        members: [{ id: 'draft', role: 'writer', instructions: 'Write the note.', script: { student: drafts.map(complete) } }],
        max_iterations: 3,
        judgment: { mode: 'post_step', callers: [{ kind: 'a2a', url, name: 'Reviewer' }], verifier: { must_cite: ['draft'] } },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'note', type: 'text' }, { name: 'approved', type: 'boolean' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'topic' }, to: { node: 'p', port: 'topic' } },
      { from: { node: 'p', port: 'output' }, to: { node: 'out', port: 'note' } },
      { from: { node: 'p', port: 'approved' }, to: { node: 'out', port: 'approved' } },
    ],
  });
}

async function run(g: WorkflowGraph, privacy?: PrivacyPolicy, extra: Partial<Parameters<typeof runWorkflow>[0]> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'steward-a2a-judge-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph: g, specDir: dir, inputs: { topic: 'caching' }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), ...(privacy ? { privacy } : {}), ...extra });
  for (const e of events) expect(RunEvent.safeParse(e).success, e.type).toBe(true);
  const judgments = events.filter((e): e is RunEventOf<'pattern.judgment'> => e.type === 'pattern.judgment').map((e) => e.judgment);
  const calls = events.filter((e): e is RunEventOf<'a2a.called'> => e.type === 'a2a.called');
  return { result, events, judgments, calls };
}

/** The data part's fields a judgment message carries, each value masked in the privacy log. */
const SENT_FIELDS = Object.fromEntries(['judgment_id', 'step', 'iteration', 'output', 'outputs', 'min_citations', 'must_cite'].map((k) => [k, MASK]));

describe('an A2A agent as a pattern judge', () => {
  it('rejects then approves: its feedback reaches the next iteration, its agent card is read, and each judgment records who judged', async () => {
    const server = await judgeServer([reject('Missing a Risks section.'), approve]);
    const { result, judgments, events, calls } = await run(graph(server.url, ['Cache reads.', 'Cache reads.\n## Risks\nStale data.']));
    expect(result.status).toBe('completed');
    // The privacy log: each judgment sent, to which agent and host, its sizes and field names — never the text or the values.
    const host = new URL(server.url).host;
    const agent = { name: SCRIPTED_JUDGE_CARD.name, version: SCRIPTED_JUDGE_CARD.version };
    expect(calls).toEqual([
      expect.objectContaining({ host, local: true, name: 'Reviewer', agent, judgment_id: 'p:j0.1.0.1', sent: { text_bytes: expect.any(Number), data_fields: SENT_FIELDS }, requests: 2, outcome: 'answered', invocation_id: 'p' }),
      expect.objectContaining({ host, local: true, agent, judgment_id: 'p:j0.2.0.1', requests: 1, outcome: 'answered' }),
    ]);
    // The card (a GET, no body) and the messages: the bytes are the JSON-RPC bodies the server was sent.
    expect(calls[0]?.bytes).toBeGreaterThan(calls[0]?.sent?.text_bytes ?? Infinity);
    expect(calls[1]?.sent?.data_fields).toEqual({ ...SENT_FIELDS });
    expect(JSON.stringify(calls)).not.toContain('Cache reads.');
    expect(JSON.stringify(calls)).not.toContain('design note');
    expect(result.outputs).toEqual({ note: 'Cache reads.\n## Risks\nStale data.', approved: true });
    const identity = { kind: 'a2a', url: server.url, name: 'Reviewer', agent: { name: SCRIPTED_JUDGE_CARD.name, version: SCRIPTED_JUDGE_CARD.version } };
    expect(judgments).toEqual([
      expect.objectContaining({ id: 'p:j0.1.0.1', caller: identity, verdict: expect.objectContaining({ verdict: 'rejected', feedback: 'Missing a Risks section.' }), evidence: ['draft#1'], verification: { ok: true } }),
      expect.objectContaining({ id: 'p:j0.2.0.1', caller: identity, verdict: expect.objectContaining({ verdict: 'approved', caller: identity }), evidence: ['draft#2'] }),
    ]);
    // The card once (then the JSON-RPC endpoint it names), and what a model judge is sent: the task, the outputs by id.
    expect(server.requests.filter((r) => r.path === '/.well-known/agent-card.json')).toHaveLength(1);
    expect(server.requests.filter((r) => r.path === '/a2a/jsonrpc')).toHaveLength(2);
    expect(server.received[0]?.text).toContain('Write a short design note about caching.');
    expect(server.received[0]?.data).toMatchObject({ judgment_id: 'p:j0.1.0.1', output: 'Cache reads.', outputs: [{ id: 'draft#1', member_id: 'draft', text: 'Cache reads.' }], must_cite: ['draft'] });
    expect(server.received[1]?.text).toContain(`${FEEDBACK_HEADING}\nMissing a Risks section.`);
    const second = events.find((e) => e.type === 'agent.started' && e.pattern_member === 'draft#2');
    expect(second?.type === 'agent.started' && second.task).toContain('Missing a Risks section.');
    // The audit in the trace: each judgment span names its A2A caller and the agent card it read.
    const spans = runSpans(events).filter((s) => s.name === 'apply_guardrail pattern_judgment');
    expect(spans.map((s) => s.attributes)).toEqual([
      expect.objectContaining({ 'steward.judgment.caller': 'a2a', 'steward.judgment.caller.url': server.url, 'steward.judgment.caller.name': 'Reviewer', 'gen_ai.agent.name': SCRIPTED_JUDGE_CARD.name, 'steward.judgment.caller.agent_version': '1.2.0', 'steward.verdict': 'rejected' }),
      expect.objectContaining({ 'steward.judgment.caller': 'a2a', 'gen_ai.agent.name': SCRIPTED_JUDGE_CARD.name, 'steward.verdict': 'approved' }),
    ]);
  });

  it('a host the privacy policy does not allow is refused before anything is sent: the server sees nothing, the judgment fails in words', async () => {
    const server = await judgeServer([approve, approve]);
    // 0.0.0.0 reaches this machine but is not loopback by name: under the policy it is another host.
    const far = `http://0.0.0.0:${server.port}`;
    const { result, judgments, calls } = await run(graph(far, ['Cache reads.']));
    expect(server.requests).toEqual([]);
    // The privacy log shows each refusal: that host, nothing sent, and why in words.
    expect(calls).toEqual([
      expect.objectContaining({ host: `0.0.0.0:${server.port}`, local: false, name: 'Reviewer', judgment_id: 'p:j0.1.0.1', requests: 0, bytes: 0, outcome: 'refused', problem: expect.stringContaining('does not allow (local only); nothing was sent'), invocation_id: 'p' }),
      expect.objectContaining({ host: `0.0.0.0:${server.port}`, requests: 0, bytes: 0, outcome: 'refused' }),
    ]);
    for (const call of calls) expect(call.sent === undefined && call.agent === undefined).toBe(true);
    expect(result.status).toBe('failed');
    expect(result.invocations.find((i) => i.id === 'p')?.failure?.code).toBe('pattern_escalated');
    expect(judgments).toHaveLength(2);
    for (const j of judgments) {
      expect(j.verdict).toBeUndefined();
      expect(j.caller).toEqual({ kind: 'a2a', url: far, name: 'Reviewer' });
      expect(j.verification).toEqual({ ok: false, problem: expect.stringContaining(`which the workspace privacy policy does not allow (local only); nothing was sent`) });
    }
    await expect(readAgentCard({ url: far })).rejects.toMatchObject({ code: 'refused' });

    // Once the policy lists that host, the same judge is asked.
    const allowed = await run(graph(far, ['Cache reads.']), { allowed_hosts: [`0.0.0.0:${server.port}`] });
    expect(allowed.result.status).toBe('completed');
    expect(allowed.calls).toEqual([expect.objectContaining({ host: `0.0.0.0:${server.port}`, local: false, requests: 2, outcome: 'answered' })]);
    expect(server.requests.map((r) => r.path)).toContain('/.well-known/agent-card.json');
  });

  it('a malformed reply is a typed failure in words, never an approval', async () => {
    const server = await judgeServer([{ text: 'Looks good to me, approved.' }, { data: { verdict: 'approve', evidence: ['draft#1'] } }]);
    const { result, judgments } = await run(graph(server.url, ['Cache reads.']));
    expect(result.status).toBe('failed');
    expect(result.outputs).toEqual({});
    expect(judgments.map((j) => j.verdict)).toEqual([undefined, undefined]);
    expect(judgments[0]?.verification).toEqual({ ok: false, problem: expect.stringContaining('replied in free text, not with a verdict (“Looks good to me, approved.”)') });
    expect(judgments[1]?.verification).toEqual({ ok: false, problem: expect.stringMatching(/replied with something that is not a verdict \(verdict: .*\); nothing was approved/) });
    // Typed: the failure's code says which way the reply was unusable.
    const reply = { messageId: 'm', contextId: '', taskId: '', role: 2, parts: [{ content: { $case: 'text' as const, value: 'yes' }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [], referenceTaskIds: [] };
    expect(() => verdictOfReply(reply, 'the judge')).toThrow(A2aJudgeError);
    expect(() => verdictOfReply(reply, 'the judge')).toThrow(expect.objectContaining({ code: 'malformed_reply' }));
    expect(() => verdictOfReply({ ...reply, parts: [] }, 'the judge')).toThrow(expect.objectContaining({ code: 'no_verdict', message: 'the judge replied with no text and no data: there is no verdict in it' }));
  });

  it('reads the agent card: name, description, version, skills', async () => {
    const server = await judgeServer([]);
    const { summary } = await readAgentCard({ url: server.url });
    expect(summary).toEqual({ ...SCRIPTED_JUDGE_CARD, skills: [{ id: 'review', name: 'Review a draft', description: 'Approves or rejects with feedback' }] });
  });
});

const { hasSessionBus, store, planted: PLANTED, server: plantedServer, plant } = plantedKeychain();

describe.skipIf(!hasSessionBus)('a planted keychain secret and an A2A judge (needs a D-Bus session with a Secret Service)', () => {
  it('a tool prints the secret into the pattern\'s task: the judge is sent it masked, and the privacy log\'s entry never holds it', async () => {
    await plant(PLANTED);
    const server = await judgeServer([approve]);
    const base = graph(server.url, ['Cache reads.']);
    // The topic is what the planted server's get-env prints: its whole environment, the secret in it.
    const g = WorkflowGraph.parse({
      ...base,
      id: 'a2a-judged-leak-probe',
      servers: [plantedServer],
      nodes: [{ id: 'env', kind: 'tool', server: 'ev', tool: 'get-env' }, ...base.nodes.filter((n) => n.id !== 'in')],
      edges: [{ from: { node: 'env', port: 'text' }, to: { node: 'p', port: 'topic' } }, ...base.edges.filter((e) => e.from.node !== 'in')],
    });
    const { result, events, calls } = await run(g, undefined, { inputs: {}, credentials: store, confirm: async () => 'granted' });
    expect(result.status, result.message).toBe('completed');
    // The judge was sent the task with the environment in it, the secret masked where it stood.
    expect(server.received[0]?.text).toContain('••••(keychain:planted-token)');
    expect(JSON.stringify(server.received)).not.toContain(PLANTED);
    expect(calls).toEqual([expect.objectContaining({ outcome: 'answered', sent: { text_bytes: expect.any(Number), data_fields: SENT_FIELDS } })]);
    expect(calls[0]?.sent?.text_bytes).toBeGreaterThan(200);
    expect(JSON.stringify(calls)).not.toContain(PLANTED);
    expect(JSON.stringify(events)).not.toContain(PLANTED);
  });
});
