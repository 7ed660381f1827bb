import { describe, expect, it } from 'vitest';
import type { RunEventPayload } from '@shared/contracts/events';
import { ModelScript } from '@shared/contracts/script';
import { ScsSettings } from '@shared/scs/contracts';
import { failedFact, okFact } from '@shared/scs/testing/fixtures';
import { createScriptProvider } from '../providers/script-provider';
import { ScsController } from './scs-controller';

/**
 * The transcript budget in the prompts the monitor is really sent: 200 executor rounds, each
 * reviewed (monitor_every 1), are 400 decisions; the "Decisions so far" section stays within
 * `transcript_budget`, the newest round word for word. Replay (scripted) models: the test double.
 */
describe('the SCS transcript budget in real monitor prompts', () => {
  it('the transcript stays within its budget with 200 decisions', async () => {
    const ROUNDS = 200;
    const budget = 1500;
    const accept = { json: { decision: 'accept_phase', confidence: 0.8, evidence: [], reason: 'Progress matches the plan; go on with the next file.', next_required_action: 'supervisor_continue' } };
    const script = ModelScript.parse({
      latency_ms: 0,
      committee: [{ json: { phase_goal: 'Tidy every note', plan: ['List', 'Read', 'Fix'], acceptance_criteria: ['every note tidy'], allowed_tools: ['read_file', 'write_file'], stop_conditions: [] } }],
      monitor: [{ json: { decision: 'approve_plan', confidence: 0.8, evidence: [], reason: 'OK.' } }, ...Array.from({ length: ROUNDS }, () => accept)],
    });
    const transcripts: string[] = [];
    const emit = (e: RunEventPayload) => {
      if (e.type === 'scs.transcript' && e.role === 'monitor') transcripts.push(e.messages.at(-1)?.content ?? '');
    };
    const controller = new ScsController({
      settings: ScsSettings.parse({ mode: 'on', monitor_every: 1, transcript_budget: budget, loop_guard: 10 }),
      budget: ROUNDS + 10,
      writeWork: true,
      role: 'student',
      committee: createScriptProvider(script, 'committee'),
      monitor: createScriptProvider(script, 'monitor'),
      context: () => ({ task: 'Tidy the notes.', instructions: 'Be careful.', snapshot: { round: 0, tools: [], hash: 'none' }, recent: [] }),
      emit,
    });
    expect(await controller.settle()).toBe('executing');
    for (let round = 0; round < ROUNDS; round++) {
      const fact = round % 9 === 4 ? failedFact(round, `write_file {"path":"notes/${round}.md"}`) : okFact(round);
      expect(await controller.roundDone(fact)).toBe('executing');
    }
    controller.stop();

    expect(transcripts).toHaveLength(ROUNDS + 1);
    const last = transcripts.at(-1) ?? '';
    const head = 'Decisions so far (older ones summarised):\n';
    const section = last.slice(last.indexOf(head) + head.length, last.indexOf('\n\nLatest events'));
    expect(section.length).toBeLessThanOrEqual(budget);
    expect(section).toMatch(/^Earlier: \d+ decisions, summarised; executor: \d+ rounds, \d+ failed/);
    expect(section.endsWith(`round ${ROUNDS}: read notes-${ROUNDS - 1}.md`)).toBe(true);
    // Every prompt along the way stays bounded (400 decisions verbatim would be some 30,000 characters).
    expect(Math.max(...transcripts.map((t) => t.length))).toBeLessThan(6000);
  });
});
