import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { HumanAnswer } from '@shared/contracts/intervention';
import type { ScriptEntry } from '@shared/contracts/script';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { WorkflowGraph } from '@shared/workflow/document';
import { cliWith } from '../../../test-support/cli-capture';
import { startFakeOpenAI } from '../../../test-support/fake-openai';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { RunCheckpoint } from '../../engine/checkpoint';
import { runAgent } from '../../engine/run-agent';
import { EventJournal } from '../../events/event-journal';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import { runWorkflow } from '../../workflow/run-workflow';
import { replayProfile } from './profile-replay';
import { isVerdictCase, recordedRounds } from './recorded-rounds';

// The profile replay decides each recorded round again with the sampler's own draw: an agent node
// inside a workflow draws for its own agent run (`<workflow run>:<invocation>`), so the replay must
// too, or unchanged rules would "lose" sampled reviews. The models are the script provider (the
// model boundary's double).

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() ?? '', { recursive: true, force: true });
});

const RULES = { sample_rate: 0.5, sample_seed: 7 };
const ROUNDS = 16;

function sampledAgentWorkflow(): WorkflowGraph {
  const present = { json: { decision_type: 'present_result', content: 'Still looking.' } };
  const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'sampled',
    name: 'Sampled',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'q', type: 'text' }] },
      {
        id: 'asker',
        kind: 'agent',
        instructions: 'Answer.',
        task: '{{q}}',
        inputs: [{ name: 'q', type: 'text' }],
        limits: { max_rounds: ROUNDS, max_consecutive_failures: 20 },
        supervision: { phase: 3, rules: RULES },
        script: { student: Array.from({ length: ROUNDS }, () => present), teacher: Array.from({ length: ROUNDS }, () => accept) },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'a', type: 'text', required: false }] },
    ],
    edges: [
      { from: { node: 'in', port: 'q' }, to: { node: 'asker', port: 'q' } },
      { from: { node: 'asker', port: 'output' }, to: { node: 'out', port: 'a' } },
    ],
  });
}

describe('recorded rounds of an agent node inside a workflow', () => {
  it('replayed under the rules they ran with, every sampled review is still a review (the draw is the agent run’s own)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-sampled-'));
    dirs.push(dir);
    const events: RunEvent[] = [];
    await runWorkflow({ graph: sampledAgentWorkflow(), specDir: dir, inputs: { q: 'Where is it?' }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
    const rounds = recordedRounds(events);
    expect(rounds).toHaveLength(ROUNDS);
    const sampled = rounds.filter((r) => r.record.review?.required === true && r.record.review.rule === 'sampled');
    // With half the rounds drawn, some were reviewed and some were not (the check below means something).
    expect(sampled.length).toBeGreaterThan(0);
    expect(sampled.length).toBeLessThan(ROUNDS);
    const same = replayProfile(rounds, { label: 'the same rules', supervision: { ...rounds[0]!.supervision, rules: { ...rounds[0]!.supervision.rules } } as never });
    expect(same.unreviewed).toEqual([]);
    expect(same.newly_reviewed).toBe(0);
    expect(same.reviewed).toBe(sampled.length);
  });
});

// Issue 31: a round a PERSON decided (their answer to the teacher's escalation, or to a tool's
// confirmation) is a case too, its past verdict the person's answer (what the boundary acted on).
// Real runs of the engine on the real filesystem MCP server, the student and the recorded teacher
// scripted; the candidate teacher is a TEST DOUBLE at the model boundary (a local server speaking the
// OpenAI chat API) that accepts everything.

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** One run that waits for a person at its write, answered `answer`; every event it recorded, the answer included. */
async function answeredRun(supervision: AgentSpecInput['supervision'], teacher: ScriptEntry[], answer: HumanAnswer, tool_effects: AgentSpecInput['tool_effects'] = {}): Promise<RunEvent[]> {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'shares-notes',
    name: 'Shares notes',
    instructions: 'Work in ${workspace}.',
    task: 'Share the notes.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file'] }],
    supervision,
    tool_effects,
  });
  const write: ScriptEntry = { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, 'shared.md'), content: 'shared' } } };
  const complete: ScriptEntry = { json: { decision_type: 'complete', output: 'done' } };
  const events: RunEvent[] = [];
  const ledger = createMemoryLedger();
  const script = { latency_ms: 0, student: [write, complete], teacher };
  // The app's confirm policy: the host never answers for the person.
  const first = await runAgent({ spec, specDir: ws.dir, workspace: ws.workspace, script, ledger, onEvent: (e) => events.push(e), confirm: async () => 'pending' });
  expect(first.status).toBe('waiting');
  const cp = RunCheckpoint.parse(JSON.parse(JSON.stringify(first.checkpoint)));
  await runAgent({ spec: cp.spec, specDir: cp.spec_dir, workspace: cp.workspace, script: cp.script, ledger, onEvent: (e) => events.push(e), resume: { checkpoint: cp, answer } });
  return events;
}

const escalate: ScriptEntry = { json: { verdict: 'escalate', reason_codes: ['policy_violation'], explanation: 'A person should approve what gets shared.' } };
const accept: ScriptEntry = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };

describe('recorded rounds a person decided', () => {
  it('an escalation the person rejected, a confirmation the teacher accepted and the person rejected, an escalation the person approved: one case per round, the person’s answer its past verdict; a candidate that accepts everything loses the person’s catches (exit 1, listed first)', async () => {
    const rejected = await answeredRun({ phase: 3, on_escalate: 'human' }, [escalate, accept], { action: 'reject', note: 'Not before the minutes are out.' });
    const confirmed = await answeredRun({ phase: 4 }, [accept, accept], { action: 'reject' }, { 'fs/write_file': { effect: 'irreversible_write', requires_user_confirmation: true } });
    const approved = await answeredRun({ phase: 3, on_escalate: 'human' }, [escalate, accept], { action: 'approve' });

    // The escalated write: the teacher escalated it, the person rejected it; the person's answer is the case's verdict.
    const [write, after] = recordedRounds(rejected);
    expect(write).toMatchObject({ round: 0, protected: true, decided_by: 'person', person: 'reject', person_note: 'Not before the minutes are out.', teacher_verdict: { verdict: 'escalate' }, past: { verdict: 'block', reason_codes: ['policy_violation'] } });
    expect(isVerdictCase(write!)).toBe(true);
    // The final answer after the refusal is the teacher's own case.
    expect(after).toMatchObject({ decided_by: 'teacher', past: { verdict: 'accept' } });

    // The teacher accepted the write, the tool's confirmation held it, the person rejected it: the person's answer is the case's verdict.
    const confirmation = recordedRounds(confirmed).filter(isVerdictCase);
    expect(confirmation[0]).toMatchObject({ round: 0, protected: true, decided_by: 'person', teacher_verdict: { verdict: 'accept' }, past: { verdict: 'block', reason_codes: ['other'] }, prompt: { review: { rule: 'protected_effect' } } });
    expect(confirmation[0]?.person_note).toBeUndefined();

    // The approved escalation: the person accepted it (the round that then ran was the person's decision, no case of its own).
    const approval = recordedRounds(approved).filter(isVerdictCase);
    expect(approval[0]).toMatchObject({ round: 0, decided_by: 'person', past: { verdict: 'accept' }, teacher_verdict: { verdict: 'escalate' } });
    expect(approval.filter((r) => r.round === 0)).toHaveLength(1);

    // The history in a data folder; `steward eval verdicts` with a candidate that accepts everything.
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-person-cases-'));
    dirs.push(dataDir);
    const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
    journal.append([...rejected, ...confirmed, ...approved], { made: true });
    journal.close();
    const lenient = await startFakeOpenAI({ chat: () => ({ message: { content: JSON.stringify({ verdict: 'accept', reason_codes: [], explanation: 'Looks fine.' }) } }) });
    cleanups.push(() => lenient.close());
    const out = await cliWith(['eval', 'verdicts', '--teacher', `${lenient.baseUrl}#accepts-all`, '--data-dir', dataDir]);
    expect(out.code, out.stderr).toBe(1);
    const lines = out.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/· 5 recorded verdicts \(2 of the teacher, 3 of a person who answered\) from 3 runs ·/);
    // The person's two rejections of a protected write come first, in words.
    // (the two runs' ids are random: either may come first) The one at the tool's confirmation,
    // of a call the recorded teacher itself accepted, is listed but is no lost catch: the
    // confirmation asks again under any teacher (replaying the same teacher must not fail).
    expect(lines.slice(1, 3)).toEqual(expect.arrayContaining([
      expect.stringMatching(/^· run \w{8} · Shares notes · round 1: the call write_file .*\(irreversible write, protected\) would now be accepted; the person rejected it \(the recorded teacher had accepted it, and the tool asked for confirmation\) — then no note; now accept/),
      expect.stringMatching(/^✗ run \w{8} · Shares notes · round 1: the call write_file .*would now be accepted; the person rejected it \(the recorded teacher had escalated it\) — then their note: "Not before the minutes are out\."; now accept/),
    ]));
    expect(lines.at(-1)).toContain('1 past catch of a protected effect would now be accepted');

    const json = await cliWith(['eval', 'verdicts', '--teacher', `${lenient.baseUrl}#accepts-all`, '--data-dir', dataDir, '--json']);
    const report = JSON.parse(json.stdout) as { cases: number; protected_catches_lost: number; flips: Array<{ kind: string; decided_by: string; protected: boolean; past: { verdict: string } }> };
    expect(report).toMatchObject({ cases: 5, protected_catches_lost: 1 });
    expect(report.flips.map((f) => [f.kind, f.decided_by, f.protected, f.past.verdict])).toEqual([
      ['catch_lost', 'person', true, 'block'],
      ['catch_lost', 'person', true, 'block'],
    ]);
  }, 120_000);
});
