import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref, type Route } from '../../app/routing';

describe('editor routes', () => {
  it('round-trip: a new workflow, editing one, and editing one with its run form open', () => {
    const routes: Route[] = [{ name: 'workflow-new' }, { name: 'workflow-edit', workflowId: 'folder-triage', run: false }, { name: 'workflow-edit', workflowId: 'folder-triage', run: true }];
    for (const r of routes) expect(parseRoute(routeHref(r))).toEqual(r);
  });

  it('a demo workflow page keeps its plain address', () => {
    expect(parseRoute('#/workflows/notes-assistant')).toEqual({ name: 'workflow', workflowId: 'notes-assistant' });
    expect(parseRoute('#/workflows/notes-assistant/edit')).toEqual({ name: 'workflow-edit', workflowId: 'notes-assistant', run: false });
    expect(parseRoute('#/workflows/new')).toEqual({ name: 'workflow-new' });
  });
});
