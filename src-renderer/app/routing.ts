import { useSyncExternalStore } from 'react';
import { navigationGuard } from './navigation-guard';

/** Hash routes. The `#token=` fragment is not a route: main.tsx stores and strips it before routing starts. */
export type Route =
  | { name: 'workflows' }
  | { name: 'workflow'; workflowId: string }
  /** The graph editor for a new workflow of the user's own. */
  | { name: 'workflow-new' }
  /** The graph editor for a stored workflow; `run`: with its run form open; `showRun`: that run's states on the graph (`#/workflows/ID/edit/RUN`). */
  | { name: 'workflow-edit'; workflowId: string; run: boolean; showRun?: string }
  | { name: 'runs' }
  /**
   * `event`: on the trace tab, the event (by sequence number) to open and scroll to. `node`: on a
   * workflow run's nodes tab, the node (by id) whose invocations to open (`#/runs/RUN/nodes/NODE`).
   */
  | { name: 'run'; runId: string; tab: 'rounds' | 'trace' | 'nodes' | 'privacy'; event?: number; node?: string }
  /** `exampleId`: one learning example on its own (`#/learning/ID`), a link that survives a reload. */
  | { name: 'learning'; exampleId?: string }
  /** Every question waiting for a person, across all runs. */
  | { name: 'interventions' }
  | { name: 'registry' }
  | { name: 'settings' };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [section, id, tab, event] = path;
  if (section === 'runs' && id && tab === 'trace' && event !== undefined && /^\d+$/.test(event)) return { name: 'run', runId: id, tab: 'trace', event: Number(event) };
  if (section === 'runs' && id && tab === 'nodes') return { name: 'run', runId: id, tab: 'nodes', ...(event !== undefined ? { node: event } : {}) };
  if (section === 'runs' && id && tab === 'privacy') return { name: 'run', runId: id, tab: 'privacy' };
  if (section === 'runs' && id) return { name: 'run', runId: id, tab: tab === 'trace' ? 'trace' : 'rounds' };
  if (section === 'runs') return { name: 'runs' };
  if (section === 'workflows' && id === 'new' && tab === undefined) return { name: 'workflow-new' };
  if (section === 'workflows' && id && tab === 'edit' && event !== undefined) return { name: 'workflow-edit', workflowId: id, run: false, showRun: event };
  if (section === 'workflows' && id && (tab === 'edit' || tab === 'run')) return { name: 'workflow-edit', workflowId: id, run: tab === 'run' };
  if (section === 'workflows' && id) return { name: 'workflow', workflowId: id };
  if (section === 'learning') return id ? { name: 'learning', exampleId: id } : { name: 'learning' };
  if (section === 'interventions') return { name: 'interventions' };
  if (section === 'registry') return { name: 'registry' };
  if (section === 'settings') return { name: 'settings' };
  return { name: 'workflows' };
}

export function routeHref(route: Route): string {
  switch (route.name) {
    case 'workflows':
      return '#/workflows';
    case 'workflow':
      return `#/workflows/${encodeURIComponent(route.workflowId)}`;
    case 'workflow-new':
      return '#/workflows/new';
    case 'workflow-edit':
      if (route.showRun !== undefined && !route.run) return `#/workflows/${encodeURIComponent(route.workflowId)}/edit/${encodeURIComponent(route.showRun)}`;
      return `#/workflows/${encodeURIComponent(route.workflowId)}/${route.run ? 'run' : 'edit'}`;
    case 'runs':
      return '#/runs';
    case 'run':
      if (route.tab === 'privacy') return `#/runs/${encodeURIComponent(route.runId)}/privacy`;
      if (route.tab === 'nodes') return `#/runs/${encodeURIComponent(route.runId)}/nodes${route.node !== undefined ? `/${encodeURIComponent(route.node)}` : ''}`;
      return `#/runs/${encodeURIComponent(route.runId)}${route.tab === 'trace' ? `/trace${route.event !== undefined ? `/${route.event}` : ''}` : ''}`;
    case 'learning':
      return route.exampleId === undefined ? '#/learning' : `#/learning/${encodeURIComponent(route.exampleId)}`;
    case 'interventions':
      return '#/interventions';
    case 'registry':
      return '#/registry';
    case 'settings':
      return '#/settings';
  }
}

export function navigate(route: Route): void {
  window.location.hash = routeHref(route);
}

/** The route the app shows: a change waits there while a guard (unsaved edits) asks the person. */
export function useRoute(): Route {
  const hash = useSyncExternalStore(navigationGuard.subscribe, navigationGuard.shownHash);
  return parseRoute(hash);
}
