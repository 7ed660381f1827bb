import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliWith } from '../../../test-support/cli-capture';
import { SCRIPTED_JUDGE_CARD, startScriptedA2aJudge, type JudgmentRequestData } from '../../../test-support/scripted-a2a-judge';
import { EXIT } from './cli';

/**
 * Judges that are not models, from the command line (issue 29): an A2A agent (a real @a2a-js/sdk
 * server on loopback whose agent is a scripted judge, the double at the model boundary) whose card
 * `steward validate` shows and whose judgments `steward run` prints by its card's name; verifiers
 * (an expression, a JSON Schema) judging a run, and a bad one refused by `steward validate` in words.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const complete = (output: string) => ({ json: { decision_type: 'complete', output } });

function workflowFile(callers: unknown[], drafts: string[]): { file: string; dataDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'steward-judges-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'judged.workflow.json');
  writeFileSync(
    file,
    JSON.stringify({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'judged',
      name: 'Judged',
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] },
        {
          id: 'p',
          kind: 'pattern',
          type: 'SUPERVISOR',
          task: 'Write a short design note about {{topic}} as JSON.',
          inputs: [{ name: 'topic', type: 'text' }],
          members: [{ id: 'draft', role: 'writer', instructions: 'Write the note.', script: { student: drafts.map(complete) } }],
          max_iterations: 3,
          judgment: { mode: 'post_step', callers },
        },
        { id: 'out', kind: 'output', fields: [{ name: 'note', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'topic' }, to: { node: 'p', port: 'topic' } },
        { from: { node: 'p', port: 'output' }, to: { node: 'out', port: 'note' } },
      ],
    }),
  );
  return { file, dataDir: join(dir, 'data') };
}

const judgmentLines = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('    ⚖')).map((l) => l.replace(/ · \d+ ms$/, ''));

describe('judges that are not models, in the CLI', () => {
  it('an A2A judge: validate shows its agent card; run prints each judgment by the card’s name and version', async () => {
    const cite = (d: JudgmentRequestData) => d.outputs.map((o) => o.id);
    const server = await startScriptedA2aJudge([(d) => ({ data: { verdict: 'rejected', feedback: 'Add the risks.', evidence: cite(d) } }), (d) => ({ text: JSON.stringify({ verdict: 'approved', evidence: cite(d) }) })]);
    cleanups.push(() => server.close());
    const { file, dataDir } = workflowFile([{ kind: 'a2a', url: server.url }], ['Cache reads.', 'Cache reads. Risks: stale data.']);

    const valid = await cliWith(['validate', file, '--data-dir', dataDir]);
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(EXIT.ok);
    expect(valid.stdout).toContain(`  judge p (A2A at ${server.url}): agent “${SCRIPTED_JUDGE_CARD.name}” 1.2.0 — ${SCRIPTED_JUDGE_CARD.description}. Skills: review (Review a draft)`);

    const run = await cliWith(['run', file, '--input', 'topic=caching', '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.ok);
    expect(judgmentLines(run.stdout)).toEqual([
      `    ⚖ p:j0.1.0.1 A2A agent “${SCRIPTED_JUDGE_CARD.name}” 1.2.0 at ${server.url} → rejected (cites draft#1): Add the risks.`,
      `    ⚖ p:j0.2.0.1 A2A agent “${SCRIPTED_JUDGE_CARD.name}” 1.2.0 at ${server.url} → approved (cites draft#2)`,
      '    ⚖ p approved after 2 iteration(s)',
    ]);
    // The privacy log's entries, in words: which agent and host, what was sent (sizes, field names), never the text or the values.
    const sent = run.stdout.split('\n').filter((l) => l.startsWith('    ⇄'));
    const host = new URL(server.url).host;
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(
      new RegExp(`^    ⇄ p judgment p:j0\\.1\\.0\\.1 sent to the A2A agent “${SCRIPTED_JUDGE_CARD.name}” 1\\.2\\.0 at ${host} \\(this machine\\), which answered · 2 requests, [\\d.]+ (B|KiB): the judgment text \\([\\d.]+ (B|KiB), masked before it left; not logged\\) and the fields judgment_id, step, iteration, output, outputs, min_citations, must_cite \\(values not logged\\)$`),
    );
    expect(sent[1]).toContain('· 1 request,');
    expect(sent.join('\n')).not.toContain('Cache reads.');
  }, 60_000);

  it('validate refuses an A2A judge on a host the policy does not allow, before anything is sent', async () => {
    const server = await startScriptedA2aJudge([]);
    cleanups.push(() => server.close());
    const { file, dataDir } = workflowFile([{ kind: 'a2a', url: `http://0.0.0.0:${server.port}` }], ['x']);
    const refused = await cliWith(['validate', file, '--data-dir', dataDir]);
    expect(refused.code).toBe(EXIT.badInput);
    expect(refused.stderr).toContain(`would send this run's data to 0.0.0.0:${server.port}, which the workspace privacy policy does not allow`);
    expect(server.requests).toEqual([]);
  }, 60_000);

  it('verifiers judge a run: an expression rejects with the part that does not hold, then a JSON Schema and the expression approve', async () => {
    const callers = [
      { kind: 'expression', name: 'has risks', expression: 'length(json.risks) > 0' },
      { kind: 'json_schema', schema: { title: 'Design note', type: 'object', required: ['summary', 'risks'] } },
    ];
    const { file, dataDir } = workflowFile(callers, ['{"summary":"Cache reads.","risks":[]}', '{"summary":"Cache reads.","risks":["stale data"]}']);
    const run = await cliWith(['run', file, '--input', 'topic=caching', '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT.ok);
    expect(judgmentLines(run.stdout)).toEqual([
      '    ⚖ p:j0.1.0.1 expression verifier “has risks” → rejected (cites draft#1): The output does not satisfy the expression: “length(json.risks) > 0” does not hold (length(json.risks) is 0).',
      '    ⚖ p:j0.1.1.1 JSON Schema verifier “Design note” → approved (cites draft#1)',
      '    ⚖ p:j0.2.0.1 expression verifier “has risks” → approved (cites draft#2)',
      '    ⚖ p:j0.2.1.1 JSON Schema verifier “Design note” → approved (cites draft#2)',
      '    ⚖ p approved after 2 iteration(s)',
    ]);
  }, 60_000);

  it('validate refuses a bad expression and a schema that cannot compile, in words', async () => {
    const bad = workflowFile([{ kind: 'expression', expression: 'json.score >= ' }], ['x']);
    const refused = await cliWith(['validate', bad.file, '--data-dir', bad.dataDir]);
    expect(refused.code).toBe(EXIT.badInput);
    expect(refused.stderr).toContain('the expression "json.score >= " cannot be used: the expression ends where a value was expected');
    const schema = workflowFile([{ kind: 'json_schema', schema: { type: 'thing' } }], ['x']);
    const refusedSchema = await cliWith(['validate', schema.file, '--data-dir', schema.dataDir]);
    expect(refusedSchema.code).toBe(EXIT.badInput);
    expect(refusedSchema.stderr).toContain('judge 1 (json_schema): the schema cannot be used');
  }, 60_000);
});
