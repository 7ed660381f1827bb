import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref, type Route } from './routing';

describe('hash routes', () => {
  it('round-trips every route through its href', () => {
    const routes: Route[] = [
      { name: 'workflows' },
      { name: 'runs' },
      { name: 'run', runId: 'run-abc:12/x', tab: 'rounds' },
      { name: 'run', runId: 'run-abc', tab: 'trace' },
      { name: 'workflow', workflowId: 'notes-assistant' },
      { name: 'learning' },
      { name: 'registry' },
      { name: 'settings' },
    ];
    for (const r of routes) expect(parseRoute(routeHref(r))).toEqual(r);
  });

  it('falls back to workflows for an empty or unknown hash', () => {
    expect(parseRoute('')).toEqual({ name: 'workflows' });
    expect(parseRoute('#/nowhere')).toEqual({ name: 'workflows' });
  });
});
