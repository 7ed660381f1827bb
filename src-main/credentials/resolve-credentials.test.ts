import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { CredentialStoreError } from './credential-store';
import { createKeychainStore } from './keychain-store';
import { collectCredentialRefs, resolveCredentials } from './resolve-credentials';
import { resolveLaunch } from '../mcp/server-launch';
import { SecretRegistry, maskLabel } from './secret-registry';

const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const SERVICE = `steward-test-${randomBytes(6).toString('hex')}`;
const PLANTED = `sk-planted-${randomBytes(12).toString('hex')}`;

function spec(input: Partial<AgentSpecInput>): AgentSpec {
  return AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'creds',
    name: 'Credentials',
    instructions: 'Do the task.',
    task: 'Something.',
    ...input,
  });
}

const cloud = (key?: string) => ({ provider: 'openai_compatible' as const, base_url: 'https://api.example.test/v1', model: 'm', ...(key ? { api_key: key } : {}) });

describe('collectCredentialRefs', () => {
  it('collects model api keys and keychain env values, once each, in first-seen order', () => {
    const s = spec({
      models: { student: cloud('keychain:openai'), teacher: cloud('keychain:openai') },
      servers: [
        { id: 'gh', command: 'gh-mcp', env: { GITHUB_TOKEN: 'keychain:github', LOG_LEVEL: 'debug' } },
        { id: 'db', command: 'db-mcp', env: { DB_PASSWORD: 'keychain:db.prod', AGAIN: 'keychain:github' } },
        { id: 'plain', command: 'plain-mcp' },
      ],
    });
    expect(collectCredentialRefs(s)).toEqual(['keychain:openai', 'keychain:github', 'keychain:db.prod']);
  });

  it('finds nothing in a spec that needs no credentials (replay, Ollama, a model without a key)', () => {
    expect(collectCredentialRefs(spec({}))).toEqual([]);
    expect(collectCredentialRefs(spec({ models: { student: { provider: 'ollama', model: 'qwen3:4b' }, teacher: cloud() } }))).toEqual([]);
  });
});

describe.skipIf(!hasSessionBus)('resolveCredentials on the real Secret Service (skipped only when DBUS_SESSION_BUS_ADDRESS is unset; CI runs it under dbus-run-session)', () => {
  const store = createKeychainStore({ service: SERVICE });
  beforeAll(async () => {
    await store.set('openai', PLANTED);
    await store.set('github', 'ghp-resolved-value-1');
  });
  afterAll(async () => {
    for (const name of await store.list()) await store.delete(name);
  });

  it('fetches every value and registers it for masking before returning it', async () => {
    const registry = new SecretRegistry();
    const resolved = await resolveCredentials(['keychain:openai', 'keychain:github'], store, registry);
    expect([...resolved]).toEqual([
      ['keychain:openai', PLANTED],
      ['keychain:github', 'ghp-resolved-value-1'],
    ]);
    expect(registry.size).toBe(2);
    expect(registry.maskText(`key ${PLANTED}`)).toBe(`key ${maskLabel('openai')}`);
  });

  it('a missing credential stops resolution with a clear error that says how to add it', async () => {
    const registry = new SecretRegistry();
    const error = await resolveCredentials(['keychain:openai', 'keychain:absent'], store, registry).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(CredentialStoreError);
    expect((error as Error).message).toBe(
      'credential keychain:absent is not in the keychain — add it with `steward credentials set absent` or in Settings → Credentials',
    );
  });

  it('refuses a value too short to be masked rather than let it into a run unmasked', async () => {
    await store.set('pin', 'abc');
    const registry = new SecretRegistry();
    await expect(resolveCredentials(['keychain:pin'], store, registry)).rejects.toThrow(/credential keychain:pin is shorter than 4 characters/);
    expect(registry.size).toBe(0);
  });

  it('end to end: a resolved server env is launched with the value, and everything recorded about it is masked', async () => {
    const s = spec({ servers: [{ id: 'gh', command: 'gh-mcp', env: { GITHUB_TOKEN: 'keychain:github' } }] });
    const registry = new SecretRegistry();
    const resolved = await resolveCredentials(collectCredentialRefs(s), store, registry);
    const launched = resolveLaunch(s.servers[0]!, { vars: {}, cwd: '/', credentials: resolved });
    expect(launched.env.GITHUB_TOKEN).toBe('ghp-resolved-value-1');
    // Anything describing the launch that leaves the host goes through the registry.
    expect(registry.mask({ env: launched.env })).toEqual({ env: { GITHUB_TOKEN: maskLabel('github') } });
  });
});
