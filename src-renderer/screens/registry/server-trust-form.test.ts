import { describe, expect, it } from 'vitest';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { expandHostedWorkflow } from '@shared/policy/expand-workflow';
import { emptyServerForm, formFromServer, serverRegistrationFromForm } from './server-form';

/** A server's trust level on the registry's form (issue 31): off by default, saved only when on, read back, and carried into the runnable spec. */

const SERVERS: RegisteredServer[] = [{ id: 'filesystem', label: 'Filesystem (shipped)', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], env: {}, source: 'shipped' }];

describe('trust on the server form', () => {
  it('a new server is untrusted (no trust saved); ticking the box saves trusted, for a command and a remote server alike', () => {
    const base = { ...emptyServerForm(), id: 'notes', label: 'Notes', kind: 'command' as const, command: 'node', args: 'notes.js' };
    expect(emptyServerForm().trusted).toBe(false);
    const plain = serverRegistrationFromForm(base, { servers: SERVERS });
    expect(plain.ok && plain.registration.trust).toBeUndefined();
    const trusted = serverRegistrationFromForm({ ...base, trusted: true }, { servers: SERVERS });
    expect(trusted.ok && trusted.registration.trust).toBe('trusted');
    const remote = serverRegistrationFromForm({ ...emptyServerForm(), id: 'remote', label: 'Remote', kind: 'url', url: 'https://mcp.example.com/mcp', trusted: true }, { servers: SERVERS });
    expect(remote.ok && remote.registration.trust).toBe('trusted');
  });

  it('an edited server shows its level, and a workflow using it runs with it', () => {
    const mine: RegisteredServer = { id: 'notes', label: 'Notes', command: 'node', args: ['notes.js'], env: {}, trust: 'trusted', source: 'user' };
    expect(formFromServer(mine).trusted).toBe(true);
    expect(formFromServer(SERVERS[0]!).trusted).toBe(false);
    const expanded = expandHostedWorkflow(
      { format: 'steward/v1', kind: 'agent', id: 'w', name: 'W', instructions: 'i', task: 't', servers: [{ id: 'n', server: 'notes' }, { id: 'fs', server: 'filesystem' }] } as never,
      { servers: [...SERVERS, mine], workspaces: [], overrides: [] },
    );
    expect(expanded.ok && expanded.spec.servers.map((s) => [s.id, s.trust])).toEqual([
      ['n', 'trusted'],
      ['fs', undefined],
    ]);
  });
});
