import { describe, expect, it } from 'vitest';
import { splitDetails } from '@shared/contracts/code-words';
import { duplicateOf, exportText, newWorkflowDraft, parseWorkflowFile } from './workflow-file';

describe('workflow files', () => {
  it('an exported workflow imports back as the same document', () => {
    const doc = newWorkflowDraft([]);
    const { fileName, text } = exportText(doc);
    expect(fileName).toBe('my-workflow.workflow.json');
    expect(parseWorkflowFile(text)).toEqual({ ok: true, workflow: doc });
  });

  it('a file that is not JSON says so', () => {
    const out = parseWorkflowFile('{"format":', 'broken.workflow.json');
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error).toMatch(/^broken\.workflow\.json is not JSON/);
    if (!out.ok) expect(splitDetails(out.error).words).not.toMatch(/Unexpected|JSON input|position/);
  });

  it('an invalid workflow names the field that is wrong', () => {
    const doc = { ...newWorkflowDraft([]), nodes: [{ id: 'x', kind: 'sorcery' }] };
    const out = parseWorkflowFile(JSON.stringify(doc), 'w.json');
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error).toContain('node x: kind must be one of "input"');
  });

  it('a problem of the document itself is said once: no second "workflow: " after "is not a Steward workflow"', () => {
    const out = parseWorkflowFile(JSON.stringify({ format: 'steward/v2', kind: 'workflow', id: 'x', name: 'X', nodes: [{ id: 'a', kind: 'bogus' }], edges: [], servers: [] }), 'f.workflow.json');
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error).toMatch(/^f\.workflow\.json is not a Steward workflow: format must be one of "steward\/v1"; node a: kind must be one of /);
    expect(out.error).not.toMatch(/: workflow: /);
  });

  it('a CLI workflow file (servers by package) is refused with what to do instead', () => {
    // As in resources/examples/*.workflow.json: a server launched from an npm package.
    const text = JSON.stringify({ ...newWorkflowDraft([]), workspace: './triage-sandbox', servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'] }] });
    const out = parseWorkflowFile(text, 'folder-triage.workflow.json');
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error).toMatch(/CLI workflow file.*MCP registry/);
    // In words (issue 28): which entry lacks what, the unknown fields by name; the schema path only in details.
    if (!out.ok) {
      const { words, details } = splitDetails(out.error);
      expect(words).toContain('the first server entry has no `server`: name the registered server it uses');
      expect(words).toContain('the first server entry has unknown fields "package", "args"');
      expect(words).not.toMatch(/\bservers\.\d/);
      expect(details).toContain('servers.0.server');
    }
  });

  it('a duplicate gets a free id and is named as a copy', () => {
    const doc = newWorkflowDraft([]);
    expect(duplicateOf(doc, ['my-workflow', 'my-workflow-copy'])).toMatchObject({ id: 'my-workflow-copy-2', name: 'My workflow (copy)' });
  });
});
