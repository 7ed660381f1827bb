import { describe, expect, it } from 'vitest';
import { leavesDocument } from './use-leave-guard';

describe('which address leaves the document being edited', () => {
  const stored = { storedId: 'notes', draftId: 'notes' };

  it('another screen, a sidebar link or a run leaves it', () => {
    for (const to of ['#/workflows', '#/runs', '#/runs/r-1/nodes/agent', '#/settings', '#/workflows/notes', '#/interventions']) expect(leavesDocument(to, stored), to).toBe(true);
  });

  it('the editor of another workflow, or a new one, leaves it', () => {
    expect(leavesDocument('#/workflows/other/edit', stored)).toBe(true);
    expect(leavesDocument('#/workflows/new', stored)).toBe(true);
  });

  it("the same workflow's run form and a run shown on its graph keep it", () => {
    expect(leavesDocument('#/workflows/notes/run', stored)).toBe(false);
    expect(leavesDocument('#/workflows/notes/edit/run-7', stored)).toBe(false);
  });

  it('the address a first save or a rename moves to (the id in the document) keeps it', () => {
    expect(leavesDocument('#/workflows/my-workflow/edit', { draftId: 'my-workflow' })).toBe(false);
    expect(leavesDocument('#/workflows/new', { draftId: 'my-workflow' })).toBe(false);
    expect(leavesDocument('#/workflows/renamed/edit', { storedId: 'notes', draftId: 'renamed' })).toBe(false);
  });
});
