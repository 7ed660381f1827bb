import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { ScriptEntry } from '@shared/contracts/script';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { runDifferences } from '@shared/replay/compare-runs';
import { recordedScript } from '@shared/replay/replay-script';
import { ReplayError } from '@shared/replay/replay-spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { startToolHost, type McpToolHost } from '../mcp/mcp-tool-host';
import { runAgent } from '../engine/run-agent';
import { RunCheckpoint } from '../engine/checkpoint';
import { isSampled } from '@shared/policy/sampler';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { planReplay } from './replay-plan';

const ws = tempNotesWorkspace();
const servers = [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file', 'list_directory'] }];
let toolHost: McpToolHost;

beforeAll(async () => {
  // One real filesystem server for every run: the runs here execute nothing (dry run) but list and validate its tools.
  toolHost = await startToolHost(AgentSpec.parse(specInput({})).servers, { vars: { workspace: ws.workspace, specDir: ws.dir }, overrides: {}, cwd: ws.dir });
}, 60_000);
afterAll(async () => {
  await toolHost.close();
  ws.cleanup();
});

function specInput(supervision: AgentSpecInput['supervision']): AgentSpecInput {
  return {
    format: 'steward/v1',
    kind: 'agent',
    id: 'replayed',
    name: 'Replayed',
    instructions: 'Work in ${workspace}.',
    task: 'Tidy ${workspace}.',
    workspace: 'notes-sandbox',
    servers,
    supervision,
    limits: { max_rounds: 6, max_consecutive_failures: 2 },
  };
}

async function record(spec: AgentSpec, script: { student: ScriptEntry[]; teacher: ScriptEntry[] }, extra: { replayOf?: string } = {}) {
  const events: RunEvent[] = [];
  await runAgent({ spec, specDir: ws.dir, workspace: ws.workspace, script: { latency_ms: 0, ...script }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), dryRun: true, toolHost, ...extra });
  return events;
}

const path = (file: string) => join(ws.workspace, file);
const studentAnswer: fc.Arbitrary<ScriptEntry> = fc.oneof<fc.Arbitrary<ScriptEntry>[]>(
  fc.constant({ json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: path('ideas.md') } } }),
  fc.constantFrom('a.md', 'b.md').map((f) => ({ json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: path(f), content: f } } })),
  fc.constant({ tool_calls: [{ name: 'list_directory', arguments: { path: ws.workspace } }] }),
  fc.constant({ json: { decision_type: 'tool_call', tool_name: 'no_such_tool', arguments: {} } }),
  fc.constant({ text: 'not json at all' }),
  fc.constant({ error: 'the model server fell over' }),
  fc.constant({ json: { decision_type: 'complete', output: 'done', confidence: 0.4 } }),
  // (ask_user now waits for a person: a run that has not ended is not replayed; present_result is delivered instead.)
  fc.constant({ json: { decision_type: 'present_result', content: 'Half of it.' } }),
);
const teacherAnswer: fc.Arbitrary<ScriptEntry> = fc.oneof<fc.Arbitrary<ScriptEntry>[]>(
  fc.constant({ json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } }),
  fc.constant({ json: { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'No.' } }),
  fc.constant({ json: { verdict: 'escalate', reason_codes: ['other'], explanation: 'Unsure.' } }),
  fc.constant({ json: { verdict: 'replace', reason_codes: ['wrong_tool'], explanation: 'Finish.', replacement: { decision_type: 'complete', output: 'by teacher' } } }),
  fc.constant({ text: '{"verdict": "acc' }),
  studentAnswer,
);

describe('replaying a recorded run', () => {
  it('replaying a run gives the same decisions, round by round, and the new run records which run it replays', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          phase: fc.constantFrom(0 as const, 1 as const, 2 as const, 3 as const, 4 as const),
          on_escalate: fc.constantFrom('teacher_takeover' as const, 'fail' as const),
          on_block: fc.constantFrom('fail' as const, 'safe_message' as const),
          complete: fc.boolean(),
          sample_rate: fc.constantFrom(0, 0.5),
        }),
        fc.array(studentAnswer, { maxLength: 8 }),
        fc.array(teacherAnswer, { maxLength: 8 }),
        async (s, student, teacher) => {
          const spec = AgentSpec.parse(specInput({ phase: s.phase, on_escalate: s.on_escalate, on_block: s.on_block, rules: { complete: s.complete, sample_rate: s.sample_rate } }));
          const recorded = await record(spec, { student, teacher });
          const plan = planReplay(recorded, recorded[0]?.run_id ?? '', { spec, specDir: ws.dir });
          const replayed = await record(plan.spec, { student: plan.spec.script?.student ?? [], teacher: plan.spec.script?.teacher ?? [] }, { replayOf: plan.replayOf });
          expect(runDifferences(recorded, replayed)).toEqual([]);
          const started = replayed.find((e) => e.type === 'run.started');
          expect(started?.type === 'run.started' && started.replay_of).toBe(recorded[0]?.run_id);
          // The replay asked for exactly the recorded answers: nothing left over, nothing missing.
          expect(recordedScript(replayed).script.student).toEqual(plan.spec.script?.student);
          expect(recordedScript(replayed).script.teacher).toEqual(plan.spec.script?.teacher);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);

  it('a replay of a replay is a replay of the recorded run: it names that run and samples review as it did', async () => {
    const spec = AgentSpec.parse(specInput({ phase: 3, rules: { sample_rate: 0.5 } }));
    const read = { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: path('ideas.md') } } };
    const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };
    const recorded = await record(spec, { student: [read, read, read, read, read, { json: { decision_type: 'complete', output: 'ok' } }], teacher: Array(6).fill(accept) });
    const first = planReplay(recorded, recorded[0]?.run_id ?? '', { spec, specDir: ws.dir });
    const replayed = await record(first.spec, { student: first.spec.script?.student ?? [], teacher: first.spec.script?.teacher ?? [] }, { replayOf: first.replayOf });
    const second = planReplay(replayed, replayed[0]?.run_id ?? '', { spec, specDir: ws.dir });
    expect(second.replayOf).toBe(recorded[0]?.run_id);
    const again = await record(second.spec, { student: second.spec.script?.student ?? [], teacher: second.spec.script?.teacher ?? [] }, { replayOf: second.replayOf });
    expect(runDifferences(recorded, again)).toEqual([]);
  });

  it('a replay that waits for a person and resumes still samples review as the recorded run did', async () => {
    const [recordedId, replayId] = ['recorded-run-0001', 'replay-run-0001'];
    // A seed where the two run ids draw round 1 differently: only the recorded run's draw is right.
    const seed = Array.from({ length: 200 }, (_, i) => i).find((n) => isSampled(0.5, n, recordedId, 1) !== isSampled(0.5, n, replayId, 1)) ?? 0;
    const spec = AgentSpec.parse(specInput({ phase: 3, on_escalate: 'human', rules: { sample_rate: 0.5, sample_seed: seed } }));
    const write = { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: path('shared.md'), content: 'x' } } };
    const read = { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: path('ideas.md') } } };
    const escalate = { json: { verdict: 'escalate', reason_codes: ['policy_violation'], explanation: 'A person decides.' } };
    const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };
    const events: RunEvent[] = [];
    const common = { specDir: ws.dir, workspace: ws.workspace, ledger: createMemoryLedger(), onEvent: (e: RunEvent) => events.push(e), dryRun: true, toolHost };
    const waiting = await runAgent({ ...common, spec, runId: replayId, replayOf: recordedId, script: { latency_ms: 0, student: [write, read, { json: { decision_type: 'complete', output: 'ok' } }], teacher: [escalate, accept, accept] } });
    expect(waiting.status).toBe('waiting');
    // Through JSON and the schema, as it comes back from disk.
    const checkpoint = RunCheckpoint.parse(JSON.parse(JSON.stringify(waiting.checkpoint)));
    expect(checkpoint.replay_of).toBe(recordedId);
    await runAgent({ ...common, spec: checkpoint.spec, specDir: checkpoint.spec_dir, script: checkpoint.script, resume: { checkpoint, answer: { action: 'reject', note: 'Not that file.' } } });
    const review = events.find((e) => e.type === 'review.decided' && e.round === 1);
    expect(review?.type === 'review.decided' && review.review.required).toBe(isSampled(0.5, seed, recordedId, 1));
  });

  it('a run whose workflow changed its task since is refused as not rebuildable, by name', async () => {
    const spec = AgentSpec.parse(specInput({ phase: 4 }));
    const recorded = await record(spec, { student: [{ json: { decision_type: 'complete', output: 'ok' } }], teacher: [] });
    const changed = { ...spec, task: 'Something else entirely.' };
    const attempt = () => planReplay(recorded, recorded[0]?.run_id ?? '', { spec: changed, specDir: ws.dir });
    expect(attempt).toThrow(ReplayError);
    expect(attempt).toThrow(/changed since run .*its task is not the one the run had/);
    expect(() => planReplay(recorded, 'x', undefined)).toThrow(/workflow "replayed" is not known here/);
    expect(() => planReplay([], 'gone-run', { spec, specDir: ws.dir })).toThrow(/no events of run "gone-run"/);
  });
});
