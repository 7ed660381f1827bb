import { randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ActionResult, AuditAction, ConfirmResult } from '@shared/contracts/audit';
import type { AuditLog } from './audit-log';
import type { ConfirmAction } from './confirm-port';

/** One explicit action, described before it happens. */
export interface ActionPlan {
  action: AuditAction;
  subject: string;
  title: string;
  detail: string;
  /** Widening access (a command, a folder, a host, a downgrade, a credential): a person decides. */
  needsConfirmation: boolean;
  apply(): Promise<void> | void;
}

interface Pending {
  plan: ActionPlan;
  code: string;
  expiresAt: number;
  attempts: number;
}

export interface ExplicitActionsOptions {
  ttlMs?: number;
  maxAttempts?: number;
  /** At most this many codes wait at once; more are refused rather than flooding the terminal. */
  maxPending?: number;
  now?: () => number;
}

/**
 * Runs explicit actions: every one is audited (approved or denied, and by whom); the ones that
 * widen access wait for a person through the shell's ConfirmAction port. Denied → nothing changes.
 */
export class ExplicitActions {
  private readonly pending = new Map<string, Pending>();
  private readonly ttlMs: number;
  private readonly maxAttempts: number;
  private readonly maxPending: number;
  private readonly now: () => number;

  constructor(
    private readonly audit: AuditLog,
    private readonly port: ConfirmAction,
    options: ExplicitActionsOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.maxPending = options.maxPending ?? 10;
    this.now = options.now ?? Date.now;
  }

  async run(plan: ActionPlan): Promise<ActionResult> {
    this.expire();
    if (!plan.needsConfirmation) {
      await this.applyAndRecord(plan, 'automatic');
      return { status: 'done' };
    }
    if (this.port.kind === 'dialog') {
      const allowed = await this.port.ask({ action: plan.action, title: plan.title, detail: plan.detail }).catch(() => false);
      if (!allowed) return this.deny(plan, 'user_dialog', 'You declined in the dialog: nothing changed.');
      await this.applyAndRecord(plan, 'user_dialog');
      return { status: 'done' };
    }
    if (this.pending.size >= this.maxPending) return this.deny(plan, 'automatic', 'Too many requests wait for a code already; answer or cancel those first.', 'too many pending');
    const id = randomUUID();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const expiresAt = this.now() + this.ttlMs;
    this.pending.set(id, { plan, code, expiresAt, attempts: 0 });
    const shown = `${code.slice(0, 3)}-${code.slice(3)}`;
    const minutes = Math.round(this.ttlMs / 60_000);
    this.port.print(
      `The Steward page asks to: ${plan.title}\n  ${plan.detail.replace(/\n/g, '\n  ')}\n  To allow it, type this code in the page: ${shown} (valid ${minutes} min). If you did not ask for this, ignore it.`,
    );
    return {
      status: 'needs_confirmation',
      confirmation_id: id,
      prompt: `Approve: ${plan.title}? ${sentence(plan.detail)} Type the code Steward printed in the terminal where it runs.`,
      expires_at: new Date(expiresAt).toISOString(),
    };
  }

  async confirm(id: string, code: string): Promise<ConfirmResult> {
    this.expire();
    const entry = this.pending.get(id);
    if (!entry) return { status: 'denied', message: 'Nothing waits for that confirmation (it expired or was answered); ask again.' };
    const typed = Buffer.from(code.replace('-', ''));
    const expected = Buffer.from(entry.code);
    if (typed.length !== expected.length || !timingSafeEqual(typed, expected)) {
      entry.attempts++;
      if (entry.attempts < this.maxAttempts) return { status: 'wrong_code', attempts_left: this.maxAttempts - entry.attempts };
      this.pending.delete(id);
      return this.deny(entry.plan, 'terminal_code', 'Too many wrong codes: nothing changed. Ask again for a new code.', 'too many wrong codes');
    }
    this.pending.delete(id);
    await this.applyAndRecord(entry.plan, 'terminal_code');
    return { status: 'done' };
  }

  cancel(id: string): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    this.pending.delete(id);
    this.record(entry.plan, 'page', 'denied', 'withdrawn in the page');
    return true;
  }

  private expire(): void {
    const now = this.now();
    for (const [id, entry] of this.pending) {
      if (entry.expiresAt > now) continue;
      this.pending.delete(id);
      this.record(entry.plan, 'terminal_code', 'denied', 'the code expired');
    }
  }

  private deny(plan: ActionPlan, by: 'user_dialog' | 'terminal_code' | 'automatic', message: string, reason?: string): ActionResult & ConfirmResult {
    this.record(plan, by, 'denied', reason);
    return { status: 'denied', message };
  }

  private async applyAndRecord(plan: ActionPlan, by: 'user_dialog' | 'terminal_code' | 'automatic'): Promise<void> {
    try {
      await plan.apply();
    } catch (err) {
      this.record(plan, by, 'approved', `not applied: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300));
      throw err;
    }
    this.record(plan, by, 'approved');
  }

  private record(plan: ActionPlan, by: 'user_dialog' | 'terminal_code' | 'automatic' | 'page', outcome: 'approved' | 'denied', reason?: string): void {
    this.audit.append({ action: plan.action, subject: plan.subject.slice(0, 300), detail: plan.detail.slice(0, 2000), decided_by: by, outcome, ...(reason ? { reason } : {}) });
  }
}

/** `detail` as a sentence for the page: capitalised, with a full stop. */
function sentence(text: string): string {
  const t = text.trim();
  return t === '' ? '' : `${t[0]?.toUpperCase() ?? ''}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
}
