import { join } from 'node:path';
import type { RunEvent } from '@shared/contracts/events';
import type { ScriptEntry } from '@shared/contracts/script';
import { traceLine } from '@shared/contracts/trace-format';
import { AgentSpec, type LifecyclePhase } from '@shared/contracts/spec';
import { createMemoryLedger } from '../src-main/mcp/idempotency-ledger';
import { runAgent } from '../src-main/engine/run-agent';
import { tempNotesWorkspace } from './workspace';

/** Where the run's workspace path stands in recorded traces and exports, so runs in different temp folders compare. */
export const WORKSPACE_MARK = '<WORKSPACE>';

export interface LearningRun {
  events: RunEvent[];
  /** The trace as `--trace` writes it (trace format 2, rounds from 1), the workspace path replaced by WORKSPACE_MARK. */
  jsonl: string;
}

export interface LearningRunOptions {
  /** How long each scripted model answer takes (default 0). */
  latencyMs?: number;
  /** Also given every event as the run emits it (a host's journal, a bench's clock). */
  onEvent?: (event: RunEvent) => void;
}

/**
 * A supervised run of `rounds` rounds that teaches every round (a scripted student and teacher on
 * the real filesystem MCP server): the student reads and writes notes, then completes; in phase 2
 * the teacher reviews every step and replaces every third one, in phase 1 the teacher acts and the
 * student shadows it (disagreeing every third round). Deterministic apart from the temp folder.
 */
export async function recordLearningRun(rounds: number, phase: LifecyclePhase = 2, options: LearningRunOptions = {}): Promise<LearningRun> {
  const ws = tempNotesWorkspace();
  try {
    const read: ScriptEntry = { json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(ws.workspace, 'ideas.md') } } };
    const write = (i: number): ScriptEntry => ({
      json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, `note-${i}.md`), content: `note ${i}: ${'a line of notes. '.repeat(8)}` } },
    });
    const step = (i: number): ScriptEntry => (i === rounds - 1 ? { json: { decision_type: 'complete', output: `done after ${rounds} rounds` } } : i % 2 === 0 ? read : write(i));
    const accept: ScriptEntry = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };
    const replace: ScriptEntry = { json: { verdict: 'replace', reason_codes: ['other'], explanation: 'Read the notes again first.', replacement: read.json } };
    const steps = Array.from({ length: rounds }, (_, i) => step(i));
    const script =
      phase === 1
        ? { teacher: steps, student: steps.map((s, i) => (i % 3 === 1 && i !== rounds - 1 ? write(1000 + i) : s)) }
        : { student: steps, teacher: steps.map((_, i) => (i % 3 === 1 && i !== rounds - 1 ? replace : accept)) };
    const spec = AgentSpec.parse({
      format: 'steward/v1',
      kind: 'agent',
      id: 'learning-run',
      name: 'Learning run',
      instructions: 'Keep notes in ${workspace}.',
      task: 'Read the ideas and write notes about them.',
      workspace: 'notes-sandbox',
      servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file'] }],
      supervision: { phase, rules: { complete: true, tools: ['read_text_file', 'write_file'] } },
      limits: { max_rounds: rounds },
    });
    const events: RunEvent[] = [];
    const result = await runAgent({
      spec,
      specDir: ws.dir,
      workspace: ws.workspace,
      script: { latency_ms: options.latencyMs ?? 0, ...script },
      ledger: createMemoryLedger(),
      onEvent: (e) => {
        events.push(e);
        options.onEvent?.(e);
      },
    });
    if (result.status !== 'completed') throw new Error(`the learning run ended ${result.status}: ${result.message ?? ''}`);
    const jsonl = events.map((e) => `${traceLine(e).split(ws.workspace).join(WORKSPACE_MARK)}\n`).join('');
    return { events, jsonl };
  } finally {
    ws.cleanup();
  }
}
