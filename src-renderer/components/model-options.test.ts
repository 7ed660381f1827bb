import { describe, expect, it } from 'vitest';
import type { ProviderStatus } from '@shared/contracts/host-api';
import { ModelRef } from '@shared/contracts/model';
import type { ProfileRow } from '../db/db';
import { choiceOf, modelOptions, openAIServersOf } from './model-options';

const providers = (reachable: boolean): ProviderStatus => ({
  script: { available: true, label: 'replay' },
  ollama: { host: 'http://127.0.0.1:11434', reachable, models: reachable ? [{ name: 'qwen3:4b', parameter_size: '4B' }] : [] },
});
const openaiAs = (model: string) => ModelRef.parse({ provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model, api_key: 'keychain:openai' });
const openai = openaiAs('gpt-x');
const qwen = ModelRef.parse({ provider: 'ollama', model: 'qwen3:4b' });
const row = (id: string, kind: 'student' | 'teacher', name: string, model: ModelRef, version = 1, origin: ProfileRow['origin'] = 'user'): ProfileRow => ({
  id,
  kind,
  name,
  version,
  created_at: '2026-01-01T00:00:00Z',
  description: '',
  model,
  origin,
});
const PROFILES: ProfileRow[] = [
  row('replay-student', 'student', 'Replay student', { provider: 'script' }, 1, 'builtin'),
  row('cloud', 'teacher', 'Cloud teacher', openai),
  row('cloud', 'teacher', 'Cloud teacher', openaiAs('gpt-y'), 2),
  row('local', 'student', 'Local qwen', qwen),
  row('notes', 'supervision' as 'student', 'not a model', { provider: 'script' }),
];

describe('model picker options', () => {
  it('a picker offers the person’s model profiles of its own role only, newest versions, built-ins left out: a student profile is never a teacher', () => {
    const student = modelOptions({ role: 'student', value: { provider: 'script' }, providers: providers(true), profiles: PROFILES });
    const profilesOf = (o: ReturnType<typeof modelOptions>) => o.groups.find((g) => g.label === 'Your model profiles')?.options.map((x) => x.profile);
    expect(profilesOf(student)).toEqual([{ id: 'local', version: 1 }]);
    const teacher = modelOptions({ role: 'teacher', value: { provider: 'script' }, providers: providers(true), profiles: PROFILES });
    expect(profilesOf(teacher)).toEqual([{ id: 'cloud', version: 2 }]);
    const cloud = teacher.groups.flatMap((g) => g.options).find((o) => o.profile?.id === 'cloud');
    expect(cloud?.label).toContain('Cloud teacher · v2');
    expect(cloud?.label).toContain('api.example.com:gpt-y');
    // Nothing the teacher picker offers is a student profile.
    expect(teacher.groups.flatMap((g) => g.options).some((o) => o.profile?.id === 'local')).toBe(false);
  });

  it('one entry per model: a model a profile runs is offered as that profile, never again as the raw Ollama model beside it', () => {
    const auto = row('qwen3-4b-student-1a2b3c4d', 'student', 'ollama:qwen3:4b student', qwen);
    const { groups, selected } = modelOptions({ role: 'student', value: qwen, providers: providers(true), profiles: [auto] });
    const all = groups.flatMap((g) => g.options);
    expect(all.filter((o) => o.ref.provider === 'ollama' && o.ref.model === 'qwen3:4b').map((o) => o.value)).toEqual(['profile:qwen3-4b-student-1a2b3c4d@1']);
    expect(groups.map((g) => g.label)).toEqual([undefined, 'Your model profiles']);
    expect(selected).toBe('profile:qwen3-4b-student-1a2b3c4d@1');
    // The teacher picker has no teacher profile of it: the raw model is its one entry there.
    const teacher = modelOptions({ role: 'teacher', value: qwen, providers: providers(true), profiles: [auto] });
    expect(teacher.groups.flatMap((g) => g.options).filter((o) => o.ref.provider === 'ollama').map((o) => o.value)).toEqual(['ollama:qwen3:4b']);
  });

  it('two profiles of one model are one entry: the chosen one, else the first by name', () => {
    const two = [row('b', 'student', 'B qwen', qwen), row('a', 'student', 'A qwen', qwen)];
    const first = modelOptions({ role: 'student', value: qwen, providers: providers(true), profiles: two });
    expect(first.groups.flatMap((g) => g.options).filter((o) => o.profile).map((o) => o.profile?.id)).toEqual(['a']);
    const chosen = modelOptions({ role: 'student', value: qwen, providers: providers(true), profiles: two, profile: { id: 'b', version: 1 } });
    expect(chosen.groups.flatMap((g) => g.options).filter((o) => o.profile).map((o) => o.profile?.id)).toEqual(['b']);
    expect(chosen.selected).toBe('profile:b@1');
  });

  it('choosing an OpenAI-compatible profile yields its model reference and the profile', () => {
    const { groups } = modelOptions({ role: 'teacher', value: { provider: 'script' }, providers: providers(false), profiles: PROFILES });
    const option = groups.flatMap((g) => g.options).find((o) => o.profile?.id === 'cloud');
    expect(option?.disabled).toBeFalsy();
    expect(choiceOf(groups, option!.value)).toEqual({ ref: openaiAs('gpt-y'), profile: { id: 'cloud', version: 2 } });
    expect(choiceOf(groups, 'ollama:qwen3:4b')).toBeUndefined();
  });

  it('the current model is selected: by the profile that runs it, an OpenAI-compatible one by its profile, the chosen profile when given', () => {
    const base = { role: 'student' as const, providers: providers(true), profiles: PROFILES };
    expect(modelOptions({ ...base, value: qwen }).selected).toBe('profile:local@1');
    expect(modelOptions({ ...base, value: qwen, profile: { id: 'local', version: 1 } }).selected).toBe('profile:local@1');
    expect(modelOptions({ ...base, profiles: [], value: qwen }).selected).toBe('ollama:qwen3:4b');
    const teacher = { ...base, role: 'teacher' as const };
    const cloud = modelOptions({ ...teacher, value: openaiAs('gpt-y') });
    expect(choiceOf(cloud.groups, cloud.selected)?.profile).toEqual({ id: 'cloud', version: 2 });
    // An older version the workflow still uses stays selectable.
    const old = modelOptions({ ...teacher, value: openai, profile: { id: 'cloud', version: 1 } });
    expect(old.selected).toBe('profile:cloud@1');
    expect(old.groups.flatMap((g) => g.options).find((o) => o.value === old.selected)?.label).toContain('v2 is newer');
  });

  it('a current model nobody offers stays shown and selectable: an unreachable Ollama model says so', () => {
    const lone = modelOptions({ role: 'student', value: openaiAs('other'), providers: providers(false), profiles: [] });
    const current = lone.groups.flatMap((g) => g.options).find((o) => o.value === lone.selected);
    expect(current).toMatchObject({ label: 'api.example.com:other' });
    expect(current?.disabled).toBeFalsy();
    expect(choiceOf(lone.groups, lone.selected)?.ref).toEqual(openaiAs('other'));
    const gone = modelOptions({ role: 'student', value: ModelRef.parse({ provider: 'ollama', model: 'llama9' }), providers: providers(false), profiles: [] });
    expect(gone.groups.flatMap((g) => g.options).find((o) => o.value === gone.selected)?.label).toBe('ollama:llama9 (not available)');
  });

  it('an OpenAI-compatible server the profiles use lists its models like Ollama’s (the profile’s key and mode carry over); one that cannot be reached says why, unselectable', () => {
    const servers = openAIServersOf(PROFILES);
    expect(servers).toEqual([openaiAs('gpt-y')]);
    const listed = modelOptions({ role: 'student', value: { provider: 'script' }, providers: providers(false), profiles: PROFILES, openai: [{ template: servers[0]!, status: { base_url: 'https://api.example.com/v1', reachable: true, allowed: true, models: [{ id: 'gpt-y' }, { id: 'gpt-z' }] } }] });
    const group = listed.groups.find((g) => g.label === 'api.example.com (OpenAI-compatible)');
    expect(group?.options.map((o) => o.label)).toEqual(['gpt-y', 'gpt-z']);
    expect(choiceOf(listed.groups, group!.options[1]!.value)).toEqual({ ref: openaiAs('gpt-z') });

    const down = modelOptions({ role: 'student', value: { provider: 'script' }, profiles: PROFILES, openai: [{ template: servers[0]!, status: { base_url: 'https://api.example.com/v1', reachable: false, allowed: true, models: [], error: 'Nothing answers at https://api.example.com/v1 (ECONNREFUSED) — start the server, or check the base URL and its port' } }] });
    const line = down.groups.find((g) => g.label === 'api.example.com (OpenAI-compatible)')?.options;
    expect(line).toEqual([expect.objectContaining({ label: expect.stringContaining('Nothing answers at https://api.example.com/v1'), disabled: true })]);
  });
});
