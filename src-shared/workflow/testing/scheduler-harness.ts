import type { WorkflowGraph } from '../document';
import { FINAL_INVOCATION_STATUSES, type Invocation, type InvocationStatus } from '../invocation';
import { createScheduler, schedule, type SchedulerCommand, type SchedulerEvent, type SchedulerState } from '../scheduler';

const FINAL = new Set<InvocationStatus>(FINAL_INVOCATION_STATUSES);

/**
 * Plays the host around the scheduler and checks, on every command it gets, what must always hold:
 * a `run` at most once per invocation and only for a running one, a final status at most once and
 * never left, nothing at all after `finished`. Violations are collected, not thrown, so a property
 * test can report the whole trace.
 */
export class SchedulerHarness {
  state: SchedulerState;
  readonly log: SchedulerCommand[] = [];
  readonly events: SchedulerEvent[] = [];
  readonly violations: string[] = [];
  /** Latest status by invocation id. */
  readonly status = new Map<string, InvocationStatus>();
  readonly invocations = new Map<string, Invocation>();
  /** Invocations the host was asked to run and has not answered (running or waiting). */
  readonly running = new Map<string, Invocation>();
  readonly runs: string[] = [];
  finished?: Extract<SchedulerCommand, { type: 'finished' }>;

  constructor(readonly graph: WorkflowGraph) {
    this.state = createScheduler(graph);
  }

  send(event: SchedulerEvent): SchedulerCommand[] {
    this.events.push(event);
    const next = schedule(this.state, event);
    this.state = next.state;
    for (const c of next.commands) this.take(c, event);
    return next.commands;
  }

  /** The invocations of a node the host is running now, by id. */
  runningOf(node: string): Invocation[] {
    return [...this.running.values()].filter((i) => i.node === node);
  }

  /** The invocation the scheduler last reported for an id. */
  get(id: string): Invocation {
    const inv = this.invocations.get(id);
    if (!inv) throw new Error(`no invocation ${id}; known: ${[...this.invocations.keys()].join(', ')}`);
    return inv;
  }

  done(id: string, outputs: Record<string, unknown>): SchedulerCommand[] {
    return this.send({ type: 'done', id, outputs });
  }

  failed(id: string, message = 'it broke'): SchedulerCommand[] {
    return this.send({ type: 'failed', id, failure: { code: 'tool_error', message } });
  }

  /** Final statuses reported for an id, in order (exactly one when the run is over). */
  finals(id: string): InvocationStatus[] {
    return this.log.filter((c): c is Extract<SchedulerCommand, { type: 'status' }> => c.type === 'status' && c.invocation.id === id && FINAL.has(c.status)).map((c) => c.status);
  }

  statusCommands(): Array<Extract<SchedulerCommand, { type: 'status' }>> {
    return this.log.filter((c): c is Extract<SchedulerCommand, { type: 'status' }> => c.type === 'status');
  }

  private take(c: SchedulerCommand, cause: SchedulerEvent): void {
    this.log.push(c);
    if (this.finished) this.violations.push(`${c.type} command after finished (cause ${cause.type})`);
    switch (c.type) {
      case 'status': {
        const id = c.invocation.id;
        const before = this.status.get(id);
        if (before !== undefined && FINAL.has(before)) this.violations.push(`${id} went ${before} → ${c.status}`);
        this.status.set(id, c.status);
        this.invocations.set(id, c.invocation);
        if (FINAL.has(c.status)) this.running.delete(id);
        return;
      }
      case 'run': {
        const id = c.invocation.id;
        if (this.runs.includes(id)) this.violations.push(`${id} ran twice`);
        if (this.status.get(id) !== 'running') this.violations.push(`${id} run while ${this.status.get(id) ?? 'unknown'}`);
        if (cause.type === 'cancel') this.violations.push(`${id} run on cancel`);
        this.runs.push(id);
        this.running.set(id, c.invocation);
        return;
      }
      case 'abort':
        if (!this.running.has(c.id)) this.violations.push(`abort for ${c.id}, which is not running`);
        return;
      case 'finished':
        this.finished = c;
        return;
    }
  }
}
