import { describe, expect, it } from 'vitest';
import { AgentSpec, type AgentSpecInput } from '../contracts/spec';
import { ProviderStatus, type OllamaModelInfo } from '../contracts/host-api';
import { ConfigReport, validateSupervisionConfig, type OfferedToolInfo, type ValidateConfigInput } from './validate-config';

const OLLAMA = 'http://127.0.0.1:11434';
const CHAT_TOOLS = ['completion', 'tools'];

function spec(overrides: Partial<AgentSpecInput> = {}): AgentSpec {
  return AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'notes',
    name: 'Notes',
    instructions: 'Work only inside ${workspace}.',
    task: 'Summarise the notes.',
    workspace: './sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'] }],
    models: {
      student: { provider: 'ollama', model: 'qwen3:4b' },
      teacher: { provider: 'ollama', model: 'qwen3:32b' },
    },
    ...overrides,
  });
}

function providers(models: OllamaModelInfo[] = installed(), reachable = true): ProviderStatus {
  return ProviderStatus.parse({
    script: { available: true, label: 'replay' },
    ollama: { host: OLLAMA, reachable, models: reachable ? models : [], ...(reachable ? { version: '0.6.0' } : { error: 'connection refused' }) },
  });
}

function installed(capabilities: string[] = CHAT_TOOLS): OllamaModelInfo[] {
  return [
    { name: 'qwen3:4b', capabilities },
    { name: 'qwen3:32b', capabilities },
    { name: 'llama3:latest', capabilities },
  ];
}

const READ_WRITE: OfferedToolInfo[] = [
  { name: 'read_text_file', effect: 'read', effect_source: 'shipped' },
  { name: 'write_file', effect: 'irreversible_write', effect_source: 'shipped' },
];

/** Every report must match its own schema, and the same input must give the same report. */
function validate(input: ValidateConfigInput): ConfigReport {
  const report = validateSupervisionConfig(input);
  expect(ConfigReport.parse(report)).toEqual(report);
  expect(validateSupervisionConfig(input)).toEqual(report);
  return report;
}

const fields = (issues: { field: string }[]): string[] => issues.map((i) => i.field);
const withSupervision = (supervision: AgentSpecInput['supervision']): AgentSpec => spec({ supervision });

describe('a clean configuration', () => {
  it('a local student and teacher, installed, with a default phase 3 setup is valid with nothing to say', () => {
    const report = validate({ spec: spec(), providers: providers(), credentials: [], offeredTools: READ_WRITE });
    expect(report).toEqual({ errors: [], warnings: [], status: 'Valid configuration', phaseLabel: 'Phase 3 · Risk-gated' });
  });

  it('checks that need a fact the caller did not pass are skipped, not guessed', () => {
    const s = spec({
      servers: [{ id: 'gh', command: 'gh-mcp', env: { TOKEN: 'keychain:github' } }],
      supervision: { rules: { tools: ['no_such_tool'] } },
      models: { student: { provider: 'ollama', model: 'not-pulled' }, teacher: { provider: 'ollama', model: 'qwen3:32b' } },
    });
    expect(validate({ spec: s }).errors).toEqual([]);
  });

  it('the phase label names the phase, or says supervision is off', () => {
    expect(validate({ spec: withSupervision({ phase: 2 }) }).phaseLabel).toBe('Phase 2 · Student fully gated');
    expect(validate({ spec: withSupervision({ phase: 4, rules: { sample_rate: 0.1 } }) }).phaseLabel).toBe('Phase 4 · Autonomous');
    expect(validate({ spec: withSupervision({ enabled: false, phase: 3 }) }).phaseLabel).toBe('Supervision off');
  });
});

describe('errors', () => {
  it('a cloud teacher the privacy policy does not allow is an error on models.teacher naming the host', () => {
    const s = spec({
      models: {
        student: { provider: 'ollama', model: 'qwen3:4b' },
        teacher: { provider: 'openai_compatible', base_url: 'https://api.openai.com/v1', model: 'gpt-4.1', api_key: 'keychain:openai' },
      },
    });
    const report = validate({ spec: s });
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]?.field).toBe('models.teacher');
    expect(report.errors[0]?.message).toMatch(/^The teacher model api\.openai\.com:gpt-4\.1 would send this run's data to api\.openai\.com.*\.$/);
    expect(report.status).toBe('1 error');
    // Allowed: no error, but the panel says what that host will see.
    const allowed = validate({ spec: s, privacy: { allowed_hosts: ['api.openai.com'] } });
    expect(allowed.errors).toEqual([]);
    expect(allowed.warnings).toEqual([
      {
        field: 'models.teacher',
        message:
          "The teacher model api.openai.com:gpt-4.1 runs on api.openai.com: it will see instructions, task, offered tools, canonical history, tool results, the student's candidates and validation results.",
      },
    ]);
  });

  it('a disallowed model is an error even in a role the phase does not call, because the host refuses the run', () => {
    const s = spec({
      supervision: { enabled: false, phase: 3 },
      models: { student: { provider: 'ollama', model: 'qwen3:4b' }, teacher: { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'big' } },
    });
    expect(fields(validate({ spec: s }).errors)).toEqual(['models.teacher']);
  });

  it('a keychain reference the keychain does not hold is an error on its field; present names pass', () => {
    const s = spec({
      servers: [
        { id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'] },
        { id: 'gh', command: 'gh-mcp', env: { TOKEN: 'keychain:github', MODE: 'plain', OTHER: 'keychain:present' } },
      ],
      models: {
        student: { provider: 'ollama', model: 'qwen3:4b' },
        teacher: { provider: 'openai_compatible', base_url: 'http://127.0.0.1:8080/v1', model: 'local', api_key: 'keychain:llamacpp' },
      },
    });
    const report = validate({ spec: s, credentials: ['present'] });
    expect(report.errors).toEqual([
      // Field order is the spec's: servers come before models.
      {
        field: 'servers.1.env.TOKEN',
        message: 'The keychain has no credential named github: store it (Settings → Credentials, or steward credentials set github) or correct the reference.',
      },
      {
        field: 'models.teacher.api_key',
        message: 'The keychain has no credential named llamacpp: store it (Settings → Credentials, or steward credentials set llamacpp) or correct the reference.',
      },
    ]);
    expect(validate({ spec: s, credentials: ['present', 'github', 'llamacpp'] }).errors).toEqual([]);
  });

  it('the replay provider without a script or script_file is an error on each model that uses it', () => {
    const replay = { student: { provider: 'script' as const }, teacher: { provider: 'script' as const } };
    const report = validate({ spec: spec({ models: replay }) });
    expect(fields(report.errors)).toEqual(['models.student', 'models.teacher']);
    expect(report.errors[0]?.message).toContain('no script or script_file');
    expect(validate({ spec: spec({ models: replay, script_file: 'notes.script.json' }) }).errors).toEqual([]);
  });

  it('an inline script with no student entries is an error; no teacher entries is an error only where the teacher is called every round', () => {
    const models = { student: { provider: 'script' as const }, teacher: { provider: 'script' as const } };
    const entry = { json: { decision_type: 'complete', output: 'done' } };
    const noStudent = validate({ spec: spec({ models, script: { student: [], teacher: [entry] } }) });
    expect(noStudent.errors).toEqual([{ field: 'script.student', message: 'The replay script has no student responses: the first round will fail; add student entries.' }]);

    const noTeacher = (phase: 0 | 2 | 3) => validate({ spec: spec({ models, script: { student: [entry], teacher: [] }, supervision: { phase } }) });
    expect(fields(noTeacher(2).errors)).toEqual(['script.teacher']);
    expect(fields(noTeacher(0).errors)).toEqual(['script.teacher']);
    expect(noTeacher(3).errors).toEqual([]);
    expect(fields(noTeacher(3).warnings)).toEqual(['script.teacher']);
  });

  it('rules.tools naming a tool no server offers is an error on that entry, listing what is offered', () => {
    const s = withSupervision({ rules: { tools: ['write_file', 'send_mail'] } });
    const report = validate({ spec: s, offeredTools: READ_WRITE });
    expect(report.errors).toEqual([
      {
        field: 'supervision.rules.tools.1',
        message: 'rules.tools names send_mail, which no server of this agent offers (offered: read_text_file, write_file): correct the name or remove it.',
      },
    ]);
  });

  it('an Ollama model that a reachable Ollama does not list is an error with the pull command; a tagless name means :latest', () => {
    const s = spec({ models: { student: { provider: 'ollama', model: 'llama3' }, teacher: { provider: 'ollama', model: 'gemma3:27b' } } });
    const report = validate({ spec: s, providers: providers() });
    expect(report.errors).toEqual([
      {
        field: 'models.teacher',
        message: 'The teacher model gemma3:27b is not installed in Ollama at 127.0.0.1:11434 (installed: qwen3:4b, qwen3:32b, llama3:latest): run `ollama pull gemma3:27b` or pick an installed model.',
      },
    ]);
    const none = validate({ spec: s, providers: providers([]) }).errors;
    expect(fields(none)).toEqual(['models.student', 'models.teacher']);
    expect(none.every((e) => e.message.includes('(no models installed)'))).toBe(true);
  });

  it('a model on another Ollama server than the one the app reports on is not judged by that status', () => {
    const s = spec({ models: { student: { provider: 'ollama', model: 'elsewhere:1b', host: 'http://localhost:9999' }, teacher: { provider: 'ollama', model: 'qwen3:32b' } } });
    expect(validate({ spec: s, providers: providers() }).errors).toEqual([]);
  });

  it('phase 0 or 1 with supervision off is an error: nobody would decide', () => {
    for (const phase of [0, 1] as const) {
      const report = validate({ spec: withSupervision({ enabled: false, phase }) });
      expect(report.errors).toHaveLength(1);
      expect(report.errors[0]?.field).toBe('supervision.phase');
      expect(report.errors[0]?.message).toContain('supervision is off: nobody would');
    }
    expect(validate({ spec: withSupervision({ enabled: false, phase: 2 }) }).errors).toEqual([]);
  });

  it('an unknown ${variable}, or ${workspace} without a workspace, is an error where it is used', () => {
    const s = spec({
      workspace: undefined,
      instructions: 'Work inside ${workspace}.',
      task: 'Read ${specDir}/notes and ${notes_dir}.',
      servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['--root', '${workspace}'], env: { HOME_DIR: '${home}' } }],
    });
    expect(validate({ spec: s }).errors).toEqual([
      { field: 'instructions', message: 'Uses ${workspace}, but the spec sets no workspace: set workspace (a folder, relative to the spec file).' },
      { field: 'task', message: 'Unknown variable ${notes_dir}: the known ones are ${specDir}.' },
      { field: 'servers.0.args.1', message: 'Uses ${workspace}, but the spec sets no workspace: set workspace (a folder, relative to the spec file).' },
      { field: 'servers.0.env.HOME_DIR', message: 'Unknown variable ${home}: the known ones are ${specDir}.' },
    ]);
  });
});

describe('warnings', () => {
  it('supervision off while protected tools are offered warns that they will all be blocked, naming them', () => {
    const report = validate({ spec: withSupervision({ enabled: false }), offeredTools: READ_WRITE });
    expect(report.warnings).toEqual([
      { field: 'supervision.enabled', message: 'Supervision is off: with no teacher to review them, every call to write_file (protected) will be blocked.' },
    ]);
    expect(validate({ spec: withSupervision({ enabled: false }), offeredTools: [READ_WRITE[0] as OfferedToolInfo] }).warnings).toEqual([]);
    // Tools not inspected yet: the general consequence.
    expect(validate({ spec: withSupervision({ enabled: false }) }).warnings[0]?.message).toContain('every call to a protected tool (anything but read) will be blocked');
  });

  it('phase 4 with sample_rate 0 warns that unreviewed decisions are never audited', () => {
    const report = validate({ spec: withSupervision({ phase: 4 }) });
    expect(fields(report.warnings)).toEqual(['supervision.rules.sample_rate']);
    expect(report.status).toBe('Valid configuration · 1 warning');
    expect(validate({ spec: withSupervision({ phase: 4, rules: { sample_rate: 0.05 } }) }).warnings).toEqual([]);
  });

  it('phase 4 warns that the phase-3-only rules it is given are ignored', () => {
    const report = validate({ spec: withSupervision({ phase: 4, rules: { sample_rate: 0.1, tools: ['write_file'], complete: true, min_confidence: 0.5 } }) });
    expect(fields(report.warnings)).toEqual(['supervision.rules.complete', 'supervision.rules.tools.0', 'supervision.rules.min_confidence']);
  });

  it('teacher and student being the same model is a warning; the replay models are not "the same model"', () => {
    const same = spec({ models: { student: { provider: 'ollama', model: 'qwen3:4b' }, teacher: { provider: 'ollama', model: 'qwen3:4b', host: 'http://127.0.0.1:11434/' } } });
    expect(validate({ spec: same, providers: providers() }).warnings).toEqual([
      { field: 'models.teacher', message: 'The teacher is the same model as the student (ollama:qwen3:4b): it will tend to approve its own mistakes; pick a stronger teacher.' },
    ]);
    const replay = spec({ models: { student: { provider: 'script' }, teacher: { provider: 'script' } }, script_file: 'x.json' });
    expect(validate({ spec: replay }).warnings).toEqual([]);
  });

  it('a model in tools mode that does not report the tools capability is warned about, by role', () => {
    const s = spec({ models: { student: { provider: 'ollama', model: 'qwen3:4b', mode: 'tools' }, teacher: { provider: 'ollama', model: 'qwen3:32b' } } });
    const report = validate({ spec: s, providers: providers(installed(['completion'])) });
    expect(report.warnings).toEqual([
      { field: 'models.student', message: 'The student model qwen3:4b does not report tool calling: use structured mode or another model.' },
    ]);
  });

  it('Ollama unreachable while an Ollama model is selected warns on each role that uses it', () => {
    const report = validate({ spec: spec(), providers: providers([], false) });
    expect(report.errors).toEqual([]);
    expect(fields(report.warnings)).toEqual(['models.student', 'models.teacher']);
    expect(report.warnings[0]?.message).toBe(
      'The student model qwen3:4b needs Ollama at 127.0.0.1:11434, which is not reachable: start Ollama (ollama serve) before running, or pick another model.',
    );
  });

  it('models a phase never calls are not checked against Ollama: the student in phase 0, the teacher with supervision off', () => {
    const missing = spec({ models: { student: { provider: 'ollama', model: 'missing:1b' }, teacher: { provider: 'ollama', model: 'missing:2b' } } });
    expect(fields(validate({ spec: spec({ ...missing, supervision: { phase: 0 } }), providers: providers() }).errors)).toEqual(['models.teacher']);
    expect(fields(validate({ spec: spec({ ...missing, supervision: { enabled: false } }), providers: providers() }).errors)).toEqual(['models.student']);
  });

  it('min_confidence in phase 3 warns that a missing confidence counts as low', () => {
    const report = validate({ spec: withSupervision({ rules: { min_confidence: 0.6 } }) });
    expect(report.warnings).toEqual([
      {
        field: 'supervision.rules.min_confidence',
        message: 'min_confidence 0.6: a decision without a self-reported confidence counts as low, so unless the student reports one, most rounds will be reviewed.',
      },
    ]);
  });

  it('no repair round and validation_failed off warns that invalid output just fails rounds', () => {
    const report = validate({ spec: withSupervision({ max_repair_rounds: 0, rules: { validation_failed: false } }) });
    expect(fields(report.warnings)).toEqual(['supervision.max_repair_rounds']);
    expect(report.warnings[0]?.message).toContain('invalid student output just fails the round, and 3 in a row fail the run');
    expect(validate({ spec: withSupervision({ max_repair_rounds: 0 }) }).warnings).toEqual([]);
    expect(validate({ spec: withSupervision({ rules: { validation_failed: false } }) }).warnings).toEqual([]);
    // The teacher proposes in phases 0–1: the student's validity does not decide anything.
    expect(validate({ spec: withSupervision({ phase: 1, max_repair_rounds: 0, rules: { validation_failed: false } }) }).warnings).toEqual([]);
  });

  it('a tool with no effect metadata is warned about as protected (unknown), pointing at the MCP registry', () => {
    const report = validate({ spec: spec(), offeredTools: [...READ_WRITE, { name: 'run_query', effect: 'unknown', effect_source: 'missing' }] });
    expect(report.warnings).toEqual([
      {
        field: 'tool_effects',
        message: 'run_query has no effect metadata, so it is protected (unknown): every call is reviewed by the teacher. Set its effect in the MCP registry.',
      },
    ]);
  });

  it('settings that have no effect are pointed out: a safe_message not used, takeover_rounds with on_escalate fail, an override for an unoffered tool', () => {
    const s = spec({
      supervision: { safe_message: 'Nothing changed.', on_escalate: 'fail', takeover_rounds: 5 },
      tool_effects: { 'fs/delete_everything': { effect: 'irreversible_write' } },
    });
    const report = validate({ spec: s, offeredTools: READ_WRITE });
    expect(fields(report.warnings)).toEqual(['supervision.safe_message', 'supervision.takeover_rounds', 'tool_effects.fs/delete_everything']);
    expect(validate({ spec: spec({ supervision: { safe_message: 'Nothing changed.', on_block: 'safe_message' } }) }).warnings).toEqual([]);
  });

  it('marking read a tool Steward knows nothing about warns that it trusts the server; a shipped read tool marked read does not', () => {
    const s = spec({
      servers: [
        { id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'] },
        { id: 'db', command: 'postgres-mcp', args: [] },
      ],
      tool_effects: { 'db/query': { effect: 'read' }, 'fs/read_text_file': { effect: 'read' } },
    });
    const report = validate({ spec: s });
    expect(report.warnings).toEqual([
      {
        field: 'tool_effects.db/query',
        message: expect.stringContaining('this trusts the server\'s own implementation (a "read-only" SQL tool can still be made to write)') as unknown as string,
      },
    ]);
  });

  it('a server whose tool list is empty offers nothing, and a script no model uses is ignored: both warned', () => {
    const s = spec({
      servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: [] }],
      script: { student: [], teacher: [] },
    });
    expect(fields(validate({ spec: s }).warnings)).toEqual(['servers.0.tools', 'script']);
  });

  it('a hosted model without an api_key is warned about; a local OpenAI-compatible server needs none', () => {
    const teacher = (base_url: string) =>
      spec({ models: { student: { provider: 'ollama', model: 'qwen3:4b' }, teacher: { provider: 'openai_compatible', base_url, model: 'm' } } });
    const hosted = validate({ spec: teacher('https://api.example.com/v1'), privacy: { allowed_hosts: ['api.example.com'] } });
    expect(fields(hosted.warnings)).toEqual(['models.teacher', 'models.teacher.api_key']);
    expect(validate({ spec: teacher('http://localhost:8080/v1') }).warnings).toEqual([]);
  });
});

describe('the report', () => {
  it('errors and warnings are each in the spec’s field order, whatever order the checks run in, and counted in the status', () => {
    const s = spec({
      task: 'Use ${nope}.',
      servers: [
        { id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'] },
        { id: 'gh', command: 'gh-mcp', env: { B_TOKEN: 'keychain:b', A_TOKEN: 'keychain:a' } },
      ],
      models: {
        student: { provider: 'ollama', model: 'qwen3:4b', mode: 'tools' },
        teacher: { provider: 'ollama', model: 'absent:7b' },
      },
      supervision: { phase: 4, max_repair_rounds: 0, rules: { validation_failed: false, tools: ['nope_tool'], sample_rate: 0 } },
    });
    const report = validate({
      spec: s,
      providers: providers(installed(['completion'])),
      credentials: [],
      offeredTools: [...READ_WRITE, { name: 'mystery', effect: 'unknown', effect_source: 'missing' }],
    });
    expect(fields(report.errors)).toEqual(['task', 'servers.1.env.A_TOKEN', 'servers.1.env.B_TOKEN', 'models.teacher', 'supervision.rules.tools.0']);
    expect(fields(report.warnings)).toEqual([
      'models.student',
      'supervision.rules.sample_rate',
      'supervision.rules.tools.0',
      'supervision.max_repair_rounds',
      'tool_effects',
    ]);
    expect(report.status).toBe('5 errors · 5 warnings');
  });

  it('the status counts in the singular and plural', () => {
    const twoWarnings = validate({ spec: withSupervision({ phase: 4, rules: { complete: true } }) });
    expect(twoWarnings.status).toBe('Valid configuration · 2 warnings');
    const oneError = validate({ spec: withSupervision({ enabled: false, phase: 0 }) });
    expect(oneError.status).toBe('1 error · 1 warning');
  });

  it('every message is one finished sentence with no unfilled placeholder', () => {
    const s = spec({
      models: { student: { provider: 'ollama', model: 'qwen3:4b', mode: 'tools' }, teacher: { provider: 'openai_compatible', base_url: 'https://x.example/v1', model: 'm' } },
      supervision: { enabled: false, phase: 1, max_repair_rounds: 0 },
    });
    const report = validate({ spec: s, providers: providers(installed(['completion'])), offeredTools: [{ name: 'x', effect: 'unknown', effect_source: 'missing' }] });
    const all = [...report.errors, ...report.warnings];
    expect(all.length).toBeGreaterThanOrEqual(4);
    for (const issue of all) {
      expect(issue.message).toMatch(/^\S[^\n]*\.$/);
      expect(issue.message).not.toMatch(/undefined|\[object|  /);
    }
  });
});
