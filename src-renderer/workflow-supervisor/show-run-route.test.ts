import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref, type Route } from '../app/routing';

describe('the editor opened on a run (the run view’s "Open in editor" shows its verdicts on the graph)', () => {
  it('round-trips a workflow and a run id, any characters included, and the plain editor route stays as it was', () => {
    for (const showRun of ['run-abc', 'a b/c', 'x%y:1']) {
      const route: Route = { name: 'workflow-edit', workflowId: 'must-say-ok', run: false, showRun };
      expect(parseRoute(routeHref(route))).toEqual(route);
    }
    expect(routeHref({ name: 'workflow-edit', workflowId: 'w', run: false })).toBe('#/workflows/w/edit');
    expect(parseRoute('#/workflows/w/edit')).toEqual({ name: 'workflow-edit', workflowId: 'w', run: false });
    expect(parseRoute('#/workflows/w/edit/run-1')).toEqual({ name: 'workflow-edit', workflowId: 'w', run: false, showRun: 'run-1' });
  });
});
