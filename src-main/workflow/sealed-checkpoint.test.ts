import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { WorkflowGraph } from '@shared/workflow/document';
import { memorySealKeys, noKeychainSealKeys } from '../../test-support/seal-keys-double';
import { plantedIn, plantedPins } from '../../test-support/sensitive-input-workflow';
import { tempNotesWorkspace } from '../../test-support/workspace';
import type { SealKeys } from '../credentials/seal-keys';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { openText, sealText } from './sealed-box';
import { openCheckpoint } from './sealed-checkpoint';
import { runWorkflow, type RunWorkflowOptions } from './run-workflow';
import { WorkflowCheckpoint } from './workflow-checkpoint';

/**
 * Issue 27, the seal itself: a waiting run's checkpoint keeps the values bound for a sensitive
 * argument only sealed (AES-256-GCM, the key in the keychain); a checkpoint that does not open —
 * key gone, keychain unreachable, box damaged or moved to another run — ends its run in words and
 * never resumes with a wrong value. Keys here are the keychain's in-memory stand-in
 * (test-support/seal-keys-double.ts); the real keychain: test-support/sensitive-input-restart.test.ts.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const PINS = [{ name: 'pin', type: 'text' }, { name: 'code', type: 'text' }] as const;
const WORKFLOW = WorkflowGraph.parse({
  format: 'steward/v1',
  kind: 'workflow',
  id: 'pins',
  name: 'Pins',
  servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'], tools: ['write_file'] }],
  tool_effects: { 'fs/write_file': { effect: 'irreversible_write', sensitive_arguments: ['content'] } },
  nodes: [
    { id: 'in', kind: 'input', fields: [...PINS] },
    { id: 'set', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [...PINS], arguments: { path: 'card.txt', content: '{{pin}} {{code}}' } },
    { id: 'out', kind: 'output', fields: [{ name: 'written', type: 'text' }] },
  ],
  edges: [
    { from: { node: 'in', port: 'pin' }, to: { node: 'set', port: 'pin' } },
    { from: { node: 'in', port: 'code' }, to: { node: 'set', port: 'code' } },
    { from: { node: 'set', port: 'text' }, to: { node: 'out', port: 'written' } },
  ],
});

/** A run parked at its confirmation: the checkpoint as it was written, and how to resume it. */
async function parked(sealKeys = memorySealKeys()) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const pins = plantedPins();
  const saved: WorkflowCheckpoint[] = [];
  const options: RunWorkflowOptions = {
    graph: WORKFLOW,
    specDir: ws.dir,
    workspace: ws.workspace,
    inputs: { pin: pins.pin, code: pins.code },
    ledger: createMemoryLedger(),
    onEvent: () => undefined,
    confirm: async () => 'pending',
    persistWaiting: (c) => saved.push(WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(c)))),
    sealKeys,
  };
  const first = await runWorkflow(options);
  const checkpoint = saved.at(-1);
  const invocation = first.interventions?.[0]?.invocation_id;
  if (first.status !== 'waiting' || !checkpoint || !invocation) throw new Error(`the run did not wait: ${first.message}`);
  const resume = async (changed: WorkflowCheckpoint, keys: SealKeys = sealKeys) => {
    const events: RunEvent[] = [];
    const run = await runWorkflow({ ...options, persistWaiting: undefined, onEvent: (e) => events.push(e), sealKeys: keys, resume: { checkpoint: changed, answer: { action: 'approve' }, invocation } });
    return { run, events, wrote: existsSync(join(ws.workspace, 'card.txt')) };
  };
  return { pins, checkpoint, sealKeys, resume };
}

describe('a sealed waiting checkpoint', () => {
  it('holds the values only sealed, and shows the waiting call masked in the clear', async () => {
    const { pins, checkpoint } = await parked();
    expect(plantedIn(JSON.stringify(checkpoint), pins)).toEqual([]);
    expect(checkpoint.scheduler_events).toEqual([]);
    expect(checkpoint.sealed?.box.length).toBeGreaterThan(100);
    const [waiting] = Object.values(checkpoint.waiting);
    expect(waiting?.intervention.decision).toMatchObject({ tool_name: 'write_file', arguments: { path: 'card.txt', content: '••••••' } });
  });

  it('opens with its key to resume, and the tool call gets the real value', async () => {
    const { checkpoint, resume, sealKeys } = await parked();
    const opened = await openCheckpoint(checkpoint, sealKeys);
    expect(opened.ok && opened.checkpoint.scheduler_events.length).toBeGreaterThan(0);
    const { run, wrote } = await resume(checkpoint);
    expect(run.status, run.message).toBe('completed');
    expect(wrote).toBe(true);
  });

  it('ends its run in words when the key is gone (deleted in the keychain)', async () => {
    const { pins, checkpoint, resume, sealKeys } = await parked();
    sealKeys.forget();
    const { run, events, wrote } = await resume(checkpoint);
    expect(run.status).toBe('failed');
    expect(run.failure_code).toBe('seal_key_missing');
    expect(run.message).toMatch(/^This run waited with a sensitive value \(pin, code\) that can no longer be unlocked: the keychain key that locked it \(seal-[0-9a-f]{16}\) is gone/);
    expect(events.map((e) => e.type)).toEqual(['run.finished']);
    expect(events[0]).toMatchObject({ type: 'run.finished', status: 'failed', message: run.message });
    expect(wrote, 'the tool was never called').toBe(false);
    expect(plantedIn(JSON.stringify({ run, events }), pins)).toEqual([]);
  });

  it('ends its run in words when the keychain cannot be reached at resume', async () => {
    const { checkpoint, resume } = await parked();
    const { run, wrote } = await resume(checkpoint, noKeychainSealKeys());
    expect(run.status).toBe('failed');
    expect(run.failure_code).toBe('keychain_unavailable');
    expect(run.message).toContain('can no longer be unlocked: the keychain that holds its key could not be read (There is no keychain on this computer');
    expect(wrote).toBe(false);
  });

  it('ends its run in words when the sealed box is damaged, never resuming with a wrong value', async () => {
    const { checkpoint, resume } = await parked();
    const bytes = Buffer.from(checkpoint.sealed?.box ?? '', 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0x01;
    const { run, wrote } = await resume({ ...checkpoint, sealed: { key_id: checkpoint.sealed?.key_id ?? '', box: bytes.toString('base64') } });
    expect(run.status).toBe('failed');
    expect(run.failure_code).toBe('sealed_damaged');
    expect(run.message).toContain('can no longer be unlocked: what was locked is damaged or was not locked with that key');
    expect(wrote).toBe(false);
  });

  it('does not open in another run (the box names its run)', async () => {
    const keys = memorySealKeys();
    const key = await keys.current();
    const box = sealText('{"secret":1}', key, 'run-aaaaaaaa');
    expect(openText(box, key, 'run-aaaaaaaa')).toBe('{"secret":1}');
    expect(openText(box, key, 'run-bbbbbbbb')).toBeUndefined();
    expect(Buffer.from(box.box, 'base64').toString('latin1')).not.toContain('secret');
  });
});
