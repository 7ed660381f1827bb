import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditRecord } from '@shared/contracts/audit';
import type { RunEvent } from '@shared/contracts/events';
import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { ScriptEntry } from '@shared/contracts/script';
import { runAgent } from '../engine/run-agent';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import type { ModelProvider } from '../providers/provider';
import { cliWith } from '../../test-support/cli-capture';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { AuditLog } from './audit-log';
import { setTrustPlan } from './action-plans';
import { ExplicitActions } from './explicit-actions';
import { expandWorkflow } from './expand-workflow';
import { HostRegistry } from './host-registry';

/**
 * Issue 31, marking a server trusted: the shipped filesystem server starts untrusted; a person marks
 * it trusted (`steward servers trust`, or the registry screen's control through `servers.trust`);
 * the change is kept in the data folder and audited with who and when; and a workflow expanded from
 * the registry then runs with it trusted: at phase 4 a call carrying a value from its results is no
 * longer sent to review by the untrusted-provenance rule. The real filesystem MCP server; the
 * models are TEST DOUBLES (scripted) at the model boundary.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const call = (tool_name: string, args: Record<string, unknown>): ScriptEntry => ({ json: { decision_type: 'tool_call', tool_name, arguments: args } });

function setup() {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const dataDir = join(ws.dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const registry = new HostRegistry(dataDir);
  registry.putWorkspace({ id: 'notes', label: 'Notes', path: ws.workspace, in_data_folder: false });
  const target = join(ws.workspace, 'forward', 'launch.txt');
  writeFileSync(join(ws.workspace, 'inbox.md'), `Please look at ${target} right away.\n`);
  const workflow = HostedWorkflow.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'trust-check',
    name: 'Trust check',
    instructions: 'Work in ${workspace}.',
    task: 'Read inbox.md and tell me what it asks.',
    workspace: 'notes',
    servers: [{ id: 'fs', server: 'filesystem', tools: ['read_text_file', 'get_file_info'] }],
    supervision: { phase: 4 },
  });
  return { ws, dataDir, registry, workflow, target };
}

/** The student reads the inbox, then looks up the path the file named (a value from the server's result). */
async function runSteered(s: ReturnType<typeof setup>) {
  const spec = expandWorkflow(s.workflow, s.registry);
  const lines = [call('read_text_file', { path: join(s.ws.workspace, 'inbox.md') }), call('get_file_info', { path: s.target }), { json: { decision_type: 'complete', output: 'done' } }];
  let next = 0;
  const student: ModelProvider = { label: 'replay:test-student', complete: async () => ({ text: JSON.stringify(lines[next++]?.json), tool_calls: [], model: 'replay:test-student' }) };
  const teacher: ModelProvider = { label: 'replay:test-teacher', complete: async () => ({ text: JSON.stringify({ verdict: 'accept', reason_codes: [], explanation: 'Fine.' }), tool_calls: [], model: 'replay:test-teacher' }) };
  const events: RunEvent[] = [];
  const result = await runAgent({ spec, specDir: s.dataDir, workspace: s.ws.workspace, providers: { student, teacher }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), confirm: async () => 'pending' });
  return { spec, result };
}

const auditOf = (dataDir: string) => readFileSync(join(dataDir, 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => AuditRecord.parse(JSON.parse(line)));

describe('a server marked trusted', () => {
  it('steward servers trust filesystem trusted: kept, audited, and its results no longer send a call to review at phase 4 by the provenance rule', async () => {
    const s = setup();
    expect(s.registry.server('filesystem')?.trust).toBeUndefined();
    const before = await runSteered(s);
    expect(before.spec.servers[0]?.trust).toBeUndefined();
    expect(before.result.rounds[1]?.review).toMatchObject({ required: true, rule: 'untrusted_provenance' });

    const out = await cliWith(['servers', 'trust', 'filesystem', 'trusted', '--data-dir', s.dataDir]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('filesystem is now trusted: Values copied from its results into a later tool call are still shown with their source');
    expect(new HostRegistry(s.dataDir).server('filesystem')).toMatchObject({ source: 'shipped', trust: 'trusted' });
    const [record] = auditOf(s.dataDir);
    expect(record).toMatchObject({ action: 'servers.trust', subject: 'filesystem', detail: 'untrusted → trusted', decided_by: 'command_line', outcome: 'approved' });
    expect(Date.now() - Date.parse(record?.at ?? '')).toBeLessThan(60_000);

    const after = await runSteered(s);
    expect(after.spec.servers[0]?.trust).toBe('trusted');
    expect(after.result.rounds[1]?.review).toEqual({ required: false, rule: 'not_required' });
    // Still marked: the source is shown whatever the rule says.
    expect(after.result.rounds[1]?.provenance?.[0]?.sources[0]?.trust).toBe('trusted');

    const listed = await cliWith(['servers', 'list', '--json', '--data-dir', s.dataDir]);
    expect(JSON.parse(listed.stdout)).toMatchObject({ servers: expect.arrayContaining([{ id: 'filesystem', label: 'Filesystem (shipped)', source: 'shipped', trust: 'trusted' }]) });
  }, 60_000);

  it('through the host (servers.trust): trusted waits for a person, untrusted is only audited; a bad level or server is refused', async () => {
    const s = setup();
    const audit = new AuditLog(join(s.dataDir, 'audit.jsonl'));
    let asked = '';
    const actions = new ExplicitActions(audit, { kind: 'dialog', ask: async (request) => ((asked = request.title), true) });
    expect(await actions.run(setTrustPlan(s.registry, 'filesystem', 'trusted'))).toEqual({ status: 'done' });
    expect(asked).toContain('mark the server "filesystem" trusted');
    expect(s.registry.server('filesystem')?.trust).toBe('trusted');
    expect(setTrustPlan(s.registry, 'filesystem', 'untrusted').needsConfirmation).toBe(false);
    await actions.run(setTrustPlan(s.registry, 'filesystem', 'untrusted'));
    expect(s.registry.server('filesystem')?.trust).toBeUndefined();
    expect(auditOf(s.dataDir).map((r) => [r.action, r.detail, r.decided_by])).toEqual([
      ['servers.trust', 'untrusted → trusted', 'user_dialog'],
      ['servers.trust', 'trusted → untrusted', 'automatic'],
    ]);
    expect(() => setTrustPlan(s.registry, 'nope', 'trusted')).toThrow('no registered server "nope"');
    const bad = await cliWith(['servers', 'trust', 'filesystem', 'maybe', '--data-dir', s.dataDir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('the trust level is one of trusted or untrusted (got "maybe")');
  }, 60_000);
});
