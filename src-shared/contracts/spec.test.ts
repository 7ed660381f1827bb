import { describe, expect, it } from 'vitest';
import { AgentSpec, McpServerSpec, SupervisionSpec, WorkflowDocument } from './spec';

const minimal = { format: 'steward/v1', kind: 'agent', id: 'notes-agent', name: 'Notes agent', instructions: 'Be careful.', task: 'Tidy notes.' };
const issuesOf = (value: unknown): { path: string; message: string }[] => {
  const r = AgentSpec.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};

describe('the AgentSpec contract', () => {
  it('a minimal spec gets the documented defaults', () => {
    const spec = AgentSpec.parse(minimal);
    expect(spec).toMatchObject({
      description: '',
      servers: [],
      models: { student: { provider: 'script' }, teacher: { provider: 'script' } },
      supervision: {
        enabled: true,
        phase: 3,
        rules: { validation_failed: true, sample_rate: 0, sample_seed: 0, complete: false, tools: [] },
        max_repair_rounds: 1,
        max_verdict_attempts: 2,
        on_block: 'fail',
        safe_message: 'I could not complete this safely. Nothing was changed.',
        on_escalate: 'teacher_takeover',
        takeover_rounds: 3,
      },
      limits: { max_rounds: 12, max_consecutive_failures: 3 },
      tool_effects: {},
    });
    expect(spec.script).toBeUndefined();
  });

  it('partial supervision is completed with defaults, and bounds are enforced', () => {
    expect(AgentSpec.parse({ ...minimal, supervision: { phase: 2, rules: { complete: true } } }).supervision).toMatchObject({
      phase: 2,
      rules: { complete: true, validation_failed: true, sample_rate: 0 },
      enabled: true,
      max_verdict_attempts: 2,
    });
    expect(SupervisionSpec.safeParse({ phase: 5 }).success).toBe(false);
    expect(SupervisionSpec.safeParse({ rules: { sample_rate: 1.5 } }).success).toBe(false);
    expect(SupervisionSpec.safeParse({ max_verdict_attempts: 0 }).success).toBe(false);
    expect(SupervisionSpec.safeParse({ max_verdict_attempts: 6 }).success).toBe(false);
    expect(SupervisionSpec.safeParse({ review: 'protected_effects' }).success).toBe(false);
    expect(SupervisionSpec.safeParse({ surprise: true }).success).toBe(false);
  });

  it('an Ollama model gets its mode and timeout defaults', () => {
    const spec = AgentSpec.parse({ ...minimal, models: { student: { provider: 'ollama', model: 'qwen3:4b' } } });
    expect(spec.models.student).toEqual({ provider: 'ollama', model: 'qwen3:4b', mode: 'structured', timeout_ms: 120_000 });
    expect(spec.models.teacher).toEqual({ provider: 'script' });
  });

  it('rejects unknown keys, a bad id and a missing task', () => {
    expect(issuesOf({ ...minimal, api_key: 'sk-123' }).length).toBeGreaterThan(0);
    expect(issuesOf({ ...minimal, id: 'Notes Agent' })).toEqual([{ path: 'id', message: 'use lowercase letters, digits, - and _' }]);
    expect(issuesOf({ ...minimal, task: '' }).map((i) => i.path)).toEqual(['task']);
    expect(issuesOf({ ...minimal, format: 'steward/v2' }).map((i) => i.path)).toEqual(['format']);
  });

  it('server ids must be unique', () => {
    const servers = [
      { id: 'fs', package: '@modelcontextprotocol/server-filesystem' },
      { id: 'fs', command: 'node' },
    ];
    expect(issuesOf({ ...minimal, servers })).toEqual([{ path: 'servers.1.id', message: 'duplicate server id fs' }]);
  });

  it('tool effect overrides must name a declared server as server/tool', () => {
    const servers = [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem' }];
    expect(issuesOf({ ...minimal, servers, tool_effects: { 'fs/write_file': { effect: 'irreversible_write' } } })).toEqual([]);
    expect(issuesOf({ ...minimal, servers, tool_effects: { 'mail/send': { effect: 'external_communication' } } })).toEqual([
      { path: 'tool_effects.mail/send', message: 'no server mail' },
    ]);
    expect(issuesOf({ ...minimal, servers, tool_effects: { write_file: { effect: 'read' } } }).map((i) => i.path)).toContain('tool_effects.write_file');
  });

  it('a tool effect override is completed with safe defaults', () => {
    const servers = [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem' }];
    const spec = AgentSpec.parse({ ...minimal, servers, tool_effects: { 'fs/read_file': { effect: 'read' } } });
    expect(spec.tool_effects['fs/read_file']).toEqual({ effect: 'read', requires_user_confirmation: false, idempotency_supported: false, sensitive_arguments: [] });
  });

  it('script and script_file are exclusive', () => {
    expect(issuesOf({ ...minimal, script: {}, script_file: 'script.json' })).toEqual([{ path: 'script_file', message: 'use script or script_file, not both' }]);
    expect(AgentSpec.parse({ ...minimal, script: {} }).script).toEqual({ latency_ms: 0, student: [], teacher: [], committee: [], monitor: [] });
  });

  it('a server needs exactly one of package or command', () => {
    expect(McpServerSpec.safeParse({ id: 'fs', package: 'p' }).success).toBe(true);
    expect(McpServerSpec.safeParse({ id: 'fs', command: 'node', args: ['x.js'] }).success).toBe(true);
    expect(McpServerSpec.safeParse({ id: 'fs' }).success).toBe(false);
    expect(McpServerSpec.safeParse({ id: 'fs', package: 'p', command: 'c' }).success).toBe(false);
    expect(McpServerSpec.parse({ id: 'fs', package: 'p' }).args).toEqual([]);
  });

  it('a workflow document is discriminated by kind', () => {
    expect(WorkflowDocument.parse(minimal).kind).toBe('agent');
    expect(WorkflowDocument.safeParse({ ...minimal, kind: 'graph' }).success).toBe(false);
  });
});

describe('raw secrets in a spec', () => {
  const withEnv = (env: Record<string, string>) => ({ ...minimal, servers: [{ id: 'gh', command: 'gh-mcp', env }] });
  it('a raw key in a server env or args is refused with a pointer to the keychain', () => {
    const refused = issuesOf(withEnv({ GITHUB_TOKEN: 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8' }));
    expect(refused).toEqual([expect.objectContaining({ path: 'servers.0.env.GITHUB_TOKEN', message: expect.stringMatching(/keychain:NAME/) })]);
    expect(issuesOf({ ...minimal, servers: [{ id: 'x', command: 'x', args: ['--key', 'sk-proj-abcdefghijklmnopqrstuvwx123456'] }] })).toHaveLength(1);
  });
  it('a keychain reference and ordinary values pass', () => {
    expect(issuesOf(withEnv({ GITHUB_TOKEN: 'keychain:github', MODE: 'read-only', ROOT: '/home/me/notes' }))).toEqual([]);
  });

  const bearerLike = [
    'Authorization: Bearer abc123DEF456ghi789JKL',
    'call it with api_key=abcdefgh12345678',
    'the token: 9f8e7d6c5b4a39281706',
    'use "client_secret": "s3cr3t-v4lue-that-is-long"',
    'password=correcthorsebatterystaple',
    'X-Api-Key: 0123456789abcdef0123',
    'and sk-proj-abcdefghijklmnopqrstuvwx123456 for OpenAI',
  ];
  it.each(bearerLike)('a bearer token or key written into task, instructions or env is refused with the keychain hint: %s', (text) => {
    for (const spec of [{ ...minimal, task: `Tidy notes. ${text}` }, { ...minimal, instructions: text }, withEnv({ EXTRA: text })]) {
      const refused = issuesOf(spec);
      expect(refused).toHaveLength(1);
      expect(refused[0]?.message).toMatch(/keychain:NAME/);
    }
  });

  it('ordinary prose about tokens and keys, and references, pass', () => {
    for (const text of [
      'Count the tokens in each note and keep the key points.',
      'The API key is in keychain:openai; pass it as token: ${TOKEN}.',
      'Authorization: Bearer keychain:github',
      'Set password= in the form to nothing.',
      'Use the commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 as the base.',
    ]) {
      expect(issuesOf({ ...minimal, task: text, instructions: text }), text).toEqual([]);
    }
  });
});
