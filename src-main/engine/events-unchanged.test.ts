import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { recordScenario } from '../../test-support/events-unchanged-scenario';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runAgent } from './run-agent';

/**
 * Issue 26: the emit path, the prompt's assembly and the privacy log's sizing were made cheaper;
 * a run's events are what they were, byte for byte. The fixture holds two scripted runs' events
 * (phase 2 with a prose candidate, reads, a write with a sensitive argument and an output long
 * enough to be trimmed; phase 3 reads) as the engine before that work recorded them (2026-12-05,
 * the tree at 19:38 UTC), normalised as test-support/events-unchanged-scenario.ts says. Recorded
 * again only when an event is meant to change.
 */
describe('a run\'s events', () => {
  it('are those the engine recorded before the emit path was made cheaper', async () => {
    const fixture: unknown = JSON.parse(readFileSync(new URL('./fixtures/events-unchanged.json', import.meta.url), 'utf8'));
    const recorded = await recordScenario({ runAgent: (options) => runAgent(options as unknown as Parameters<typeof runAgent>[0]), createMemoryLedger });
    expect(JSON.parse(JSON.stringify(recorded))).toEqual(fixture);
  }, 60_000);
});
