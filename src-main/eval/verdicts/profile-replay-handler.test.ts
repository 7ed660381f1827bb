import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_METHODS } from '@shared/contracts/host-api';
import { ProfileReplayResult } from '@shared/contracts/profile-replay';
import { askingSpecInput } from '../../../test-support/asking-spec';
import { cliWith } from '../../../test-support/cli-capture';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { EventJournal } from '../../events/event-journal';
import { profileReplayHandlers } from './profile-replay-handler';

/**
 * Issue 31's button on a profile: the host route behind "Replay past verdicts" makes the check
 * `steward eval verdicts --profile` makes, over a real supervised run's history (`steward run`,
 * the real filesystem MCP server; the models are the script provider — the model boundary's double:
 * the teacher accepts a listed read and blocks a protected write). No model is called by the replay.
 */

let ws: ReturnType<typeof tempNotesWorkspace>;
let journal: EventJournal;

beforeAll(async () => {
  ws = tempNotesWorkspace();
  const dataDir = join(ws.dir, 'data');
  const read = { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '${workspace}/meeting-notes.md' } } };
  const write = { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: '${workspace}/meeting-notes.md', content: 'gone' } } };
  const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'A listed read.' } };
  const block = { json: { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'That overwrites a note.' } };
  const spec = { ...askingSpecInput({ phase: 3, rules: { tools: ['read_text_file'] }, on_block: 'fail' }), script: { latency_ms: 0, student: [read, write], teacher: [accept, block] } };
  const file = join(ws.dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec));
  const run = await cliWith(['run', file, '--data-dir', dataDir, '--no-confirm']);
  expect(run.code, run.stderr).toBe(1);
  journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
}, 120_000);

afterAll(() => {
  journal?.close();
  ws?.cleanup();
});

const profile = (supervision: Record<string, unknown>) => HOST_METHODS['verdicts.replay_profile'].params.parse({ profile: { id: 'sup-x', name: 'Lighter review', version: 3, created_at: '2026-12-01T00:00:00Z', kind: 'supervision', supervision } });

describe('verdicts.replay_profile (the Settings screen’s "Replay past verdicts")', () => {
  it('supervision off: both reviewed rounds would go unreviewed, the protected write the teacher blocked first, in words', async () => {
    const result = ProfileReplayResult.parse(await profileReplayHandlers(journal)['verdicts.replay_profile'](profile({ enabled: false })));
    expect(result).toMatchObject({ profile: 'Lighter review v3', rounds: 2, runs: 1, reviewed: 2, unreviewed: 2, catches_lost: 1, newly_reviewed: 0, truncated: false });
    expect(result.no_longer_reviewed.map((r) => [r.round, r.catch_lost, r.protected, r.verdict])).toEqual([
      [2, true, true, 'block'],
      [1, false, false, 'accept'],
    ]);
    const [write] = result.no_longer_reviewed;
    expect(write?.words).toMatch(/^the call write_file .* was reviewed \(.+\) and the teacher blocked it \(block \(an unsafe effect\): "That overwrites a note\."\); under the new rules nobody reviews it/);
    expect(write?.words).not.toContain('unsafe_effect');
  });

  it('rules that still review every round: nothing listed', async () => {
    const result = await profileReplayHandlers(journal)['verdicts.replay_profile'](profile({ rules: { tools: ['read_text_file'] } }));
    expect(result).toMatchObject({ reviewed: 2, unreviewed: 0, catches_lost: 0, no_longer_reviewed: [] });
  });

  it('only a supervision profile is replayed (the route refuses another kind in words)', () => {
    const teacher = HOST_METHODS['verdicts.replay_profile'].params.safeParse({ profile: { id: 't', name: 'T', version: 1, created_at: '2026-12-01T00:00:00Z', kind: 'teacher', model: { provider: 'script' } } });
    expect(teacher.success).toBe(false);
    expect(teacher.error?.issues.map((i) => i.message)).toContain('only a supervision profile has review rules to replay');
  });
});
