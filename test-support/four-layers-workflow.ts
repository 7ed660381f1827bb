import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptEntry } from '../src-shared/contracts/script';
import { EXAMPLES } from './workspace';

/**
 * One workflow run that goes through all four layers of supervision (DESIGN.md §1), on replay
 * models only (the scripted provider, the double at the model boundary) and no MCP server:
 * - judgment: the shipped DEBATE pattern node (its judge rejects the first iteration, approves the second);
 * - decision boundary + SCS: an agent node that summarises the decision, phase 2 (the teacher reviews
 *   every decision) with SCS on (a committee plans, the monitor approves the plan and the finish);
 * - workflow supervisor: an assert per item (one at a time); with the default script, the first item
 *   that fails gets four unusable answers (its repair rounds run out: the item fails, the answer kept,
 *   masked), the second one unusable answer, repaired into a skip.
 * Inputs: `topic` (default given) and `items` (a list; an item without "ok" fails its assert).
 */

export const FOUR_LAYERS_ID = 'four-layers';
export const SUPERVISOR_SKIP_REASON = 'not an ok line: the list goes on without it';
/** A credential the supervisor's unusable answer names: masked wherever the answer is kept. */
export const ANSWER_SECRET = 'sk-plain-5150d00d77';
const PROSE: ScriptEntry = { text: `I would skip it; by the way api_key=${ANSWER_SECRET}` };
const DEFAULT_SUPERVISOR_SCRIPT: ScriptEntry[] = [PROSE, PROSE, PROSE, PROSE, { text: 'skip' }, { json: { step: 'verdict', verdict: { action: 'skip', reason: SUPERVISOR_SKIP_REASON } } }];

const edge = (f: string, fp: string, t: string, tp: string) => ({ from: { node: f, port: fp }, to: { node: t, port: tp } });

export function fourLayersWorkflow(supervisorScript: ScriptEntry[] = DEFAULT_SUPERVISOR_SCRIPT): Record<string, unknown> {
  const debate = (JSON.parse(readFileSync(join(EXAMPLES, 'pattern-debate.workflow.json'), 'utf8')) as { nodes: Array<Record<string, unknown>> }).nodes.find((n) => n.kind === 'pattern');
  if (!debate) throw new Error('the shipped debate example has no pattern node');
  return {
    format: 'steward/v1',
    kind: 'workflow',
    id: FOUR_LAYERS_ID,
    name: 'Four layers',
    supervisor: { enabled: true, who: { kind: 'model', model: { provider: 'script' }, script: { teacher: supervisorScript } }, max_decisions: 5 },
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text', default: 'the local storage engine' }, { name: 'items', type: 'list' }] },
      { ...debate, id: 'debate', position: undefined },
      {
        id: 'summarise',
        kind: 'agent',
        instructions: 'Summarise a decision in one line.',
        task: 'Summarise: {{decision}}',
        inputs: [{ name: 'decision', type: 'text' }],
        servers: [],
        supervision: { phase: 2 },
        scs: { mode: 'on' },
        limits: { max_rounds: 3 },
        script: {
          committee: [
            {
              json: {
                phase_goal: 'Summarise the decision',
                plan: ['Read the decision', 'Write one line', 'Finish with the line'],
                acceptance_criteria: ['the summary is one line'],
                allowed_tools: [],
                stop_conditions: ['the decision is empty'],
              },
            },
          ],
          monitor: [
            { json: { decision: 'approve_plan', confidence: 0.8, evidence: [], reason: 'A one-line summary needs no tools.' } },
            { json: { decision: 'finish_allowed', confidence: 0.9, evidence: ['the summary is one line'], reason: 'One line, on the decision.', next_required_action: 'finish' } },
          ],
          student: [{ json: { decision_type: 'complete', output: 'Adopt SQLite; keep IndexedDB as the web fallback.' } }],
          teacher: [{ json: { verdict: 'accept', reason_codes: [], explanation: 'A faithful one-line summary.' } }],
        },
      },
      { id: 'each', kind: 'iterate', concurrency: 1 },
      { id: 'check', kind: 'assert', checks: [{ check: 'contains', text: 'ok' }] },
      { id: 'all', kind: 'collect' },
      { id: 'out', kind: 'output', fields: [{ name: 'decision', type: 'text' }, { name: 'summary', type: 'text' }, { name: 'list', type: 'list' }] },
    ],
    edges: [
      edge('in', 'topic', 'debate', 'topic'),
      edge('debate', 'output', 'summarise', 'decision'),
      edge('debate', 'output', 'out', 'decision'),
      edge('summarise', 'output', 'out', 'summary'),
      edge('in', 'items', 'each', 'list'),
      edge('each', 'item', 'check', 'value'),
      edge('check', 'value', 'all', 'item'),
      edge('all', 'list', 'out', 'list'),
    ],
  };
}

/** The workflow as a file in `dir` (what `steward run` is given). */
export function writeFourLayersWorkflow(dir: string, supervisorScript?: ScriptEntry[]): string {
  const file = join(dir, 'four-layers.workflow.json');
  writeFileSync(file, JSON.stringify(fourLayersWorkflow(supervisorScript), null, 2));
  return file;
}
