import { describe, expect, it } from 'vitest';
import { offerOf } from './use-kept-draft';
import { newWorkflowDraft } from './workflow-file';

const stored = { ...newWorkflowDraft([]), id: 'notes', name: 'Notes' };
const opened = { doc: stored, storedId: 'notes', updatedAt: '2025-01-01T10:00:00.000Z' };

describe('which kept draft the editor offers back', () => {
  it('a draft that differs from what was opened is offered, with when it was kept', () => {
    const offer = offerOf({ workflow_id: 'notes', document: { ...stored, description: 'typed' }, base_updated_at: opened.updatedAt, saved_at: '2025-01-01T10:05:00.000Z' }, opened);
    expect(offer).toMatchObject({ savedAt: '2025-01-01T10:05:00.000Z', savedSince: false });
    expect(offer?.doc.description).toBe('typed');
  });

  it('a draft equal to what is stored is not offered (nothing would come back)', () => {
    expect(offerOf({ workflow_id: 'notes', document: stored, saved_at: '2025-01-01T10:05:00.000Z' }, opened)).toBeUndefined();
    expect(offerOf(undefined, opened)).toBeUndefined();
  });

  it('a draft started before someone else saved says so', () => {
    const offer = offerOf({ workflow_id: 'notes', document: { ...stored, name: '' }, base_updated_at: '2024-12-31T09:00:00.000Z', saved_at: '2025-01-01T10:05:00.000Z' }, opened);
    expect(offer?.savedSince).toBe(true);
    expect(offer?.baseUpdatedAt).toBe('2024-12-31T09:00:00.000Z');
  });
});

describe('a kept draft with text typed into a JSON field (issue 28)', () => {
  const typed = { scope: 'read', field: 'inspector-tool-arguments', label: 'Arguments', text: '{ "path": ', error: 'not JSON yet: Unexpected end of JSON input', base: '{}' };

  it('is offered back with the text even when the document is what is stored: the document alone would lose it', () => {
    const offer = offerOf({ workflow_id: 'notes', document: stored, unparsed: [typed], saved_at: '2025-01-01T10:05:00.000Z' }, opened);
    expect(offer?.unparsed).toEqual([typed]);
    expect(offer?.doc).toEqual(stored);
  });

  it('a draft with no typed text offers none back', () => {
    expect(offerOf({ workflow_id: 'notes', document: { ...stored, description: 'typed' }, saved_at: '2025-01-01T10:05:00.000Z' }, opened)?.unparsed).toEqual([]);
  });
});
