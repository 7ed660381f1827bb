import { describe, expect, it } from 'vitest';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { emptyServerForm, registerablePackages, serverRegistrationFromForm } from './server-form';

const SHIPPED: RegisteredServer[] = [{ id: 'filesystem', label: 'Filesystem (shipped)', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], env: {}, source: 'shipped' }];

/** Servers installed with Steward but registered by a person with arguments of their own (issue 29). */
describe('the add-server form and the servers installed with Steward', () => {
  it('offers them after the shipped packages, each with arguments to start from', () => {
    expect(registerablePackages(SHIPPED)).toEqual([
      { package: '@modelcontextprotocol/server-filesystem', label: 'Filesystem (shipped)', args: ['${workspace}'] },
      { package: '@modelcontextprotocol/server-postgres', label: 'PostgreSQL', args: ['postgresql://USER@HOST:5432/DATABASE'] },
      { package: '@modelcontextprotocol/server-pdf', label: 'PDF reader', args: ['--stdio', '${workspace}'] },
      { package: '@modelcontextprotocol/server-sequential-thinking', label: 'Sequential thinking', args: [] },
    ]);
  });

  it('registers PostgreSQL by package, the password a keychain reference in PGPASSWORD; a password in the URL is refused', () => {
    const form = { ...emptyServerForm(), id: 'shop-db', label: 'Shop', kind: 'package' as const, package: '@modelcontextprotocol/server-postgres', args: 'postgresql://reader@db.local:5432/shop', env: [{ key: 'PGPASSWORD', credential: 'shop-db-password' }] };
    expect(serverRegistrationFromForm(form, { servers: SHIPPED })).toEqual({
      ok: true,
      registration: { id: 'shop-db', label: 'Shop', package: '@modelcontextprotocol/server-postgres', args: ['postgresql://reader@db.local:5432/shop'], env: { PGPASSWORD: 'keychain:shop-db-password' } },
    });
    const pasted = serverRegistrationFromForm({ ...form, args: 'postgresql://reader:hunter2-secret@db.local:5432/shop' }, { servers: SHIPPED });
    expect(pasted.ok).toBe(false);
    expect(JSON.stringify(pasted)).not.toContain('hunter2-secret');
  });
});
