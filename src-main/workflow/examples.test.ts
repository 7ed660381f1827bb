import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkflowGraph } from '@shared/workflow/document';

const EXAMPLES = join(__dirname, '..', '..', 'resources', 'examples');
const workflowFiles = readdirSync(EXAMPLES).filter((f) => f.endsWith('.workflow.json'));
const load = (file: string): WorkflowGraph => WorkflowGraph.parse(JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')));

describe('the shipped example workflows', () => {
  it('are the two examples and the three reference shapes of seed 004', () => {
    expect(workflowFiles.sort()).toEqual(['batch-fanout.workflow.json', 'folder-triage.workflow.json', 'memory-notes.workflow.json', 'paid-chain.workflow.json', 'streaming-chain.workflow.json']);
  });

  it.each(workflowFiles)('%s parses as a workflow document', (file) => {
    expect(() => load(file)).not.toThrow();
  });
});
