import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_METHODS, HOST_METHOD_NAMES, ServerFrame, isHostMethod, type ResponseFrame } from '@shared/contracts/host-api';
import type { CredentialStore } from '../credentials/credential-store';
import { boundaryInputs, mutationsOf } from '../../test-support/fuzz-arbitraries';
import { createHost } from './create-host';
import type { Host, HostSession } from './host-types';

/**
 * The real host's one door (`handle`, used by both shells) fed arbitrary frames and mutated valid
 * params for every method in HOST_METHODS: every answer is a typed response frame, nothing throws or
 * rejects unhandled, and the host still answers afterwards. The host runs on a temp data folder.
 */

/** The OS keychain's stand-in: credentials.* must not write the developer's real keychain. */
function memoryCredentials(): CredentialStore {
  const values = new Map<string, string>();
  return {
    list: async () => [...values.keys()],
    set: async (name, value) => void values.set(name, value),
    get: async (name) => values.get(name),
    delete: async (name) => values.delete(name),
  };
}

/**
 * One valid example per method that takes params; every other method's example is `{}`. Kept
 * generic: a method added or reshaped later is still fuzzed (its mutated `{}` at least).
 */
function seedsFor(demoWorkflow: unknown): Record<string, unknown> {
  return {
    'run.start': { workflow: demoWorkflow, overrides: { dry_run: true } },
    'run.cancel': { run_id: 'run-fuzz' },
    'credentials.set': { name: 'fuzz-cred', value: 'fuzz-value-1234' },
    'credentials.delete': { name: 'fuzz-cred' },
    'mcp.inspect': { server: 'fuzz-none' },
    'servers.register': { server: { id: 'fuzz-server', label: 'Fuzz', command: 'true', args: [] } },
    'servers.remove': { id: 'fuzz-server' },
    'workspaces.register': { workspace: { id: 'fuzz-ws', path: '/nonexistent/steward-fuzz' } },
    'workspaces.remove': { id: 'fuzz-ws' },
    'privacy.set': { policy: { allowed_hosts: [] } },
    'effects.set': { server: 'fuzz-server', tool: 'x', effect: null },
    'actions.confirm': { confirmation_id: 'c-1', code: '123-456' },
    'actions.cancel': { confirmation_id: 'c-1' },
    'audit.list': { limit: 5 },
    'interventions.answer': { run_id: 'run-fuzz', intervention_id: 'i-1', answer: { action: 'approve' } },
    'events.ack': { ids: ['run-fuzz:0'] },
  };
}

let dataDir: string;
let host: Host;
let nextId = 1;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
const session: HostSession = { id: 'fuzz-page', push: () => undefined };

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  dataDir = mkdtempSync(join(tmpdir(), 'steward-fuzz-host-'));
  host = await createHost({ dataDir, shell: 'browser', credentials: memoryCredentials(), log: () => undefined });
});

// Closing waits for the dry runs the fuzzing started to end (their servers stop): on a loaded machine, more than the default 30 s.
afterAll(async () => {
  await host.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.off('unhandledRejection', onUnhandled);
}, 90_000);

/** A response frame that validates, with a result of its method's result type when ok. */
function expectTypedResponse(frame: ResponseFrame, method: string): void {
  const parsed = ServerFrame.safeParse(frame);
  expect(parsed.success, JSON.stringify(frame).slice(0, 300)).toBe(true);
  expect(frame.kind).toBe('response');
  if (frame.ok && isHostMethod(method)) {
    const result = HOST_METHODS[method].result.safeParse(frame.result);
    expect(result.success, `${method} result: ${JSON.stringify(frame.result).slice(0, 300)}`).toBe(true);
  }
}

async function stillAnswers(): Promise<void> {
  const info = await host.handle({ kind: 'request', id: nextId++, method: 'host.info' }, session);
  expect(info.ok).toBe(true);
}

describe('the host fed arbitrary and mutated frames (real host, temp data folder)', () => {
  it('any value as a frame gets a typed response', async () => {
    const frames = fc.oneof(
      boundaryInputs([{ kind: 'request', id: 1, method: 'host.info', params: {} }]),
      fc.record({ kind: fc.constant('request'), id: fc.nat(), method: fc.oneof(fc.constantFrom(...HOST_METHOD_NAMES), fc.string()), params: fc.jsonValue({ maxDepth: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(frames, async (frame) => {
        const response = await host.handle(frame, session);
        const method = (frame as { method?: unknown } | null)?.method;
        expectTypedResponse(response, typeof method === 'string' ? method : '');
      }),
      { numRuns: 400 },
    );
    await stillAnswers();
    expect(unhandled).toEqual([]);
  });

  it('mutated valid params for every host method get a typed response', async () => {
    const demo = await host.handle({ kind: 'request', id: nextId++, method: 'workspace.demo', params: {} }, session);
    const workflow = demo.ok ? (demo.result as { workflows: unknown[] }).workflows[0] : undefined;
    const seeds = seedsFor(workflow);
    // Methods that start processes (a run, a server) get fewer runs: each valid one costs a spawn.
    const costly = new Set(['run.start', 'mcp.inspect']);
    for (const method of HOST_METHOD_NAMES) {
      const params = mutationsOf(seeds[method] ?? {});
      await fc.assert(
        fc.asyncProperty(params, async (p) => {
          const response = await host.handle({ kind: 'request', id: nextId++, method, params: p }, session);
          expectTypedResponse(response, method);
        }),
        { numRuns: costly.has(method) ? 25 : 120 },
      );
    }
    const active = await host.handle({ kind: 'request', id: nextId++, method: 'runs.active', params: {} }, session);
    for (const run_id of active.ok ? (active.result as { run_ids: string[] }).run_ids : []) {
      await host.handle({ kind: 'request', id: nextId++, method: 'run.cancel', params: { run_id } }, session);
    }
    await stillAnswers();
    expect(unhandled).toEqual([]);
  }, 60_000);

  it('a request id past 2^53 (found by the fuzzer) is answered in a valid frame, with id 0', async () => {
    const response = await host.handle({ kind: 'request', id: 2 ** 53, method: 'host.info', params: {} }, session);
    expectTypedResponse(response, 'host.info');
    expect(response.id).toBe(0);
  });

  it('a frame nested 100,000 levels deep gets a bad_request response, not a stack overflow', async () => {
    const deep: unknown = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    const demo = await host.handle({ kind: 'request', id: nextId++, method: 'workspace.demo', params: {} }, session);
    const workflow = demo.ok ? (demo.result as { workflows: Array<Record<string, unknown>> }).workflows[0] : undefined;
    const frames: Array<[string, unknown]> = [
      ['host.info', { x: deep }],
      ['events.ack', { ids: deep }],
      // Valid in every other respect: the deep value would reach the run (its replay script).
      ['run.start', { workflow: { ...workflow, script: { student: [{ json: deep }] } }, overrides: {} }],
    ];
    for (const [method, params] of frames) {
      const response = await host.handle({ kind: 'request', id: 7, method, params }, session);
      expectTypedResponse(response, method);
      expect(response.ok).toBe(false);
      expect(!response.ok && response.error.message).toMatch(/JSON nested deeper than \d+ levels/);
    }
    await stillAnswers();
    expect(unhandled).toEqual([]);
  });
});
