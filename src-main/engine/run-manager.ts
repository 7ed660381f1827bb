import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@shared/contracts/events';
import type { RunOverrides } from '@shared/contracts/host-api';
import type { AgentSpec } from '@shared/contracts/spec';
import type { IdempotencyLedger } from '../mcp/idempotency-ledger';
import { resolveSpec } from '../spec/load-spec';
import { runAgent, type AgentRun } from './run-agent';
import type { ConfirmTool } from './boundary-actors';
import type { CredentialStore } from '../credentials/credential-store';

export interface RunManagerDeps {
  ledger: IdempotencyLedger;
  /** Where every event goes first (the outbox): durable before anyone sees it. */
  onEvent: (event: RunEvent) => void;
  /** Folder relative paths in app-held specs resolve against. */
  baseDir: string;
  confirm?: ConfirmTool;
  ollamaHost?: string;
  credentials?: CredentialStore;
  log?: (line: string) => void;
}

interface ActiveRun {
  controller: AbortController;
  done: Promise<AgentRun>;
}

export function applyOverrides(spec: AgentSpec, overrides: RunOverrides): AgentSpec {
  return {
    ...spec,
    supervision: { ...spec.supervision, enabled: overrides.supervision_enabled ?? spec.supervision.enabled },
    models: { student: overrides.student ?? spec.models.student, teacher: overrides.teacher ?? spec.models.teacher },
  };
}

/** Runs started from the app: in the background, cancellable, each one's events to the outbox. */
export class RunManager {
  private readonly active = new Map<string, ActiveRun>();

  constructor(private readonly deps: RunManagerDeps) {}

  start(spec: AgentSpec, overrides: RunOverrides): { run_id: string } {
    const loaded = resolveSpec(applyOverrides(spec, overrides), this.deps.baseDir);
    const runId = randomUUID();
    const controller = new AbortController();
    const done = runAgent({
      spec: loaded.spec,
      specDir: loaded.specDir,
      workspace: loaded.workspace,
      script: loaded.script,
      ledger: this.deps.ledger,
      onEvent: this.deps.onEvent,
      runId,
      signal: controller.signal,
      confirm: this.deps.confirm,
      ollamaHost: this.deps.ollamaHost,
      privacy: overrides.privacy,
      credentials: this.deps.credentials,
    })
      .then((result) => {
        this.deps.log?.(`run ${runId} ${result.status}${result.message ? `: ${result.message}` : ''}`);
        return result;
      })
      .finally(() => this.active.delete(runId));
    this.active.set(runId, { controller, done });
    return { run_id: runId };
  }

  cancel(runId: string): boolean {
    const run = this.active.get(runId);
    if (!run) return false;
    run.controller.abort();
    return true;
  }

  activeIds(): string[] {
    return [...this.active.keys()];
  }

  /** Cancels every run and waits for each to record its end. */
  async closeAll(): Promise<void> {
    const runs = [...this.active.values()];
    for (const run of runs) run.controller.abort();
    await Promise.allSettled(runs.map((r) => r.done));
  }
}
