import { join } from 'node:path';
import { AgentSpec } from '../src-shared/contracts/spec';

/** An agent that reads the notes sandbox's meeting notes on the real filesystem server, every round unreviewed (phase 3). */
export function readingSpec(rounds: number): AgentSpec {
  return AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'reads',
    name: 'Reads',
    instructions: 'Read in ${workspace}.',
    task: 'Read the notes.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'] }],
    supervision: { enabled: true, phase: 3 },
    limits: { max_rounds: rounds, max_consecutive_failures: 1 },
  });
}

/** The replay script's entry for one such read. */
export const readNotes = (workspace: string) => ({ json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(workspace, 'meeting-notes.md') } } });

/**
 * The replay script's entry for an irreversible write (the registry's word for `edit_file`), made
 * harmless: a dry run that changes no file. Phase 3 sends it to the teacher: script `acceptAll`.
 */
export const editNotes = (workspace: string) => ({
  json: { decision_type: 'tool_call', tool_name: 'edit_file', arguments: { path: join(workspace, 'meeting-notes.md'), edits: [{ oldText: 'Team sync', newText: 'Team sync' }], dryRun: true } },
});

/** A scripted teacher accepting `n` reviews. */
export const acceptAll = (n: number) => Array.from({ length: n }, () => ({ json: { verdict: 'accept', reason_codes: [], explanation: 'fine' } }));
