import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref, type Route } from './routing';

describe('hash routes', () => {
  it('round-trips every route through its href', () => {
    const routes: Route[] = [
      { name: 'workflows' },
      { name: 'runs' },
      { name: 'run', runId: 'run-abc:12/x', tab: 'rounds' },
      { name: 'run', runId: 'run-abc', tab: 'trace' },
      { name: 'run', runId: 'run-abc', tab: 'trace', event: 15 },
      { name: 'workflow', workflowId: 'notes-assistant' },
      { name: 'learning' },
      { name: 'registry' },
      { name: 'settings' },
    ];
    for (const r of routes) expect(parseRoute(routeHref(r))).toEqual(r);
  });

  it('opens a trace event only on the trace tab and only by its sequence number', () => {
    expect(parseRoute('#/runs/run-abc/trace/7')).toEqual({ name: 'run', runId: 'run-abc', tab: 'trace', event: 7 });
    expect(parseRoute('#/runs/run-abc/trace/x7')).toEqual({ name: 'run', runId: 'run-abc', tab: 'trace' });
    expect(parseRoute('#/runs/run-abc/rounds/7')).toEqual({ name: 'run', runId: 'run-abc', tab: 'rounds' });
  });

  it('opens a run on its nodes, focused on one node by id (the editor links a clicked node there)', () => {
    expect(parseRoute('#/runs/run-abc/nodes')).toEqual({ name: 'run', runId: 'run-abc', tab: 'nodes' });
    expect(parseRoute('#/runs/run-abc/nodes/classify')).toEqual({ name: 'run', runId: 'run-abc', tab: 'nodes', node: 'classify' });
    for (const node of ['classify', 'a b/c', 'x%y']) {
      const route: Route = { name: 'run', runId: 'run-abc', tab: 'nodes', node };
      expect(parseRoute(routeHref(route))).toEqual(route);
    }
    expect(routeHref({ name: 'run', runId: 'run-abc', tab: 'nodes', node: 'a b/c' })).toBe('#/runs/run-abc/nodes/a%20b%2Fc');
  });

  it('opens one learning example by link at #/learning/ID (its id may hold any character)', () => {
    for (const exampleId of ['run-abc:000012', 'a b/c', 'x%y']) {
      const route: Route = { name: 'learning', exampleId };
      expect(parseRoute(routeHref(route))).toEqual(route);
    }
    expect(routeHref({ name: 'learning', exampleId: 'run-abc:000012' })).toBe('#/learning/run-abc%3A000012');
    expect(parseRoute('#/learning')).toEqual({ name: 'learning' });
  });

  it("opens a run's privacy log at #/runs/RUN/privacy", () => {
    const route: Route = { name: 'run', runId: 'run abc', tab: 'privacy' };
    expect(routeHref(route)).toBe('#/runs/run%20abc/privacy');
    expect(parseRoute(routeHref(route))).toEqual(route);
  });

  it('opens what waits for you across all runs at #/interventions', () => {
    expect(parseRoute('#/interventions')).toEqual({ name: 'interventions' });
    expect(routeHref({ name: 'interventions' })).toBe('#/interventions');
  });

  it('falls back to workflows for an empty or unknown hash', () => {
    expect(parseRoute('')).toEqual({ name: 'workflows' });
    expect(parseRoute('#/nowhere')).toEqual({ name: 'workflows' });
  });
});
