import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { HostProvider } from '../../app/HostProvider';
import { createHostClient } from '../../host/host-client';
import { StewardDb } from '../../db/db';
import { FakeTransport } from '../../testing/fake-transport';
import { keychainNote } from './EnterpriseIdpFields';
import { ServerForm } from './ServerForm';

const ENTERPRISE: RegisteredServer = {
  id: 'corp',
  label: 'Corp tools',
  url: 'https://mcp.example.com/mcp',
  args: [],
  env: {},
  source: 'user',
  oauth: {
    client_id: 'steward-at-as',
    grant: 'enterprise_managed',
    idp: { issuer: 'https://login.example.com', client_id: 'steward-at-idp', client_secret: 'keychain:idp-secret', id_token: 'keychain:corp-id-token' },
  },
};

function paint(editing: RegisteredServer): string {
  const client = createHostClient(new FakeTransport());
  const db = new StewardDb(`steward-server-form-${Math.random().toString(36).slice(2)}`);
  return renderToStaticMarkup(
    <HostProvider client={client} db={db} tokenMissing={false}>
      <ServerForm servers={[editing]} editing={editing} onDone={() => undefined} onCancel={() => undefined} />
    </HostProvider>,
  );
}

/** The `<input …>` carrying a test id, as rendered (there must be one). */
function control(html: string, testId: string): string {
  const found = new RegExp(`<input[^>]*data-testid="${testId}"[^>]*>`).exec(html)?.[0];
  if (found === undefined) throw new Error(`no input ${testId} in the form`);
  return found;
}

describe('the server form of an enterprise-managed server', () => {
  it('editing it shows the enterprise choice picked, its identity provider’s values, and its secrets as stored in the keychain by name', () => {
    const html = paint(ENTERPRISE);
    expect(html).toContain('Enterprise-managed (your organisation’s identity provider)');
    expect(control(html, 'server-oauth-enterprise')).toContain('checked=""');
    expect(control(html, 'server-oauth-machine')).not.toContain('checked');
    expect(html).toContain('data-testid="server-oauth-idp"');
    expect(control(html, 'server-oauth-idp-issuer')).toContain('value="https://login.example.com"');
    expect(control(html, 'server-oauth-idp-client-id')).toContain('value="steward-at-idp"');
    expect(control(html, 'server-oauth-client-id')).toContain('value="steward-at-as"');
    // Before the keychain is listed, a credential's name is shown in a name field: never a value.
    expect(control(html, 'server-oauth-idp-token-name')).toContain('value="corp-id-token"');
    expect(control(html, 'server-oauth-idp-secret-name')).toContain('value="idp-secret"');
    expect(html).toContain('Stored in the OS keychain as “corp-id-token”; this form never holds the value. To replace it, store the new one in Settings → Credentials and pick it here.');
    expect(html).toContain('Identity provider issuer URL');
    expect(html).toContain('Client id at the server');
    expect(html).not.toContain('type="password"');
  });

  it('a server signed in to through the browser has the enterprise choice unpicked and no identity provider fields', () => {
    const html = paint({ ...ENTERPRISE, id: 'plain', oauth: { client_id: 'app' } });
    expect(control(html, 'server-oauth-enterprise')).not.toContain('checked');
    expect(control(html, 'server-oauth-browser')).toContain('checked=""');
    expect(html).not.toContain('data-testid="server-oauth-idp"');
    expect(html).not.toContain('server-oauth-idp-issuer');
  });

  it('a secret’s credential name the keychain does not list is said to be missing, not stored', () => {
    expect(keychainNote('corp-id-token', ['other'], 'your ID token')).toBe('“corp-id-token” is not in the keychain yet: store your ID token in Settings → Credentials under that name before a run uses it.');
    expect(keychainNote('corp-id-token', ['corp-id-token'], 'your ID token')).toMatch(/^Stored in the OS keychain as “corp-id-token”/);
    expect(keychainNote(' ', undefined, 'your ID token')).toBeUndefined();
  });
});
