import { randomUUID } from 'node:crypto';
import type { AskAnswer, PendingAsk } from '@shared/contracts/person-ask';
import { elicitationContent } from '@shared/policy/elicitation-form';
import type { ElicitationAsk, ElicitationReply } from './client-capabilities';
import type { ReviewSample } from './reviewed-sampling';

/** An ask nobody answers is cancelled after this long (the server is told `cancel`). */
const DEFAULT_ASK_TIMEOUT_MS = 10 * 60_000;

export type AnswerOutcome = { answered: true } | { answered: false; reason: 'unknown' } | { answered: false; reason: 'invalid'; issues: Record<string, string> };

interface Held {
  ask: PendingAsk;
  settle: (reply: ElicitationReply) => void;
}

/**
 * The asks MCP servers put to the person during app runs, held in memory until answered: every
 * connected page is told of each change (`onChange`, the whole list), a page that connects later
 * reads `list()`. The first answer wins; an ask nobody answers within the bound, or whose run
 * stops (its signal), is cancelled.
 */
export class PersonAsks {
  private readonly held = new Map<string, Held>();
  private readonly timeoutMs: number;

  constructor(private readonly options: { onChange: (asks: PendingAsk[]) => void; timeoutMs?: number; now?: () => Date }) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
  }

  list(): PendingAsk[] {
    return [...this.held.values()].map((h) => h.ask);
  }

  /** The `onElicit` of one run: its asks wait here; the run's stop (`signal`) cancels them. */
  asker(runId: string, signal?: AbortSignal): (ask: ElicitationAsk) => Promise<ElicitationReply> {
    return (ask) => this.ask(runId, ask, signal);
  }

  /** The sampling review of one run (servers with `sampling: "ask"`): allowed only when the person accepts. */
  reviewer(runId: string, signal?: AbortSignal): ReviewSample {
    return async (ask) => {
      const message = ask.reply === undefined ? `MCP server "${ask.server}" wants the run's model to answer` : `The run's model answered MCP server "${ask.server}": send the answer back?`;
      const reply = await this.hold(runId, signal, (base) => ({ ...base, server: ask.server, kind: 'sampling', message, messages: ask.messages, max_tokens: ask.max_tokens, model: ask.model, ...(ask.reply !== undefined ? { reply: ask.reply.slice(0, 20_000) } : {}) }));
      return reply.action === 'accept' ? 'allow' : 'deny';
    };
  }

  /**
   * A remote server's OAuth step-up in one run (oauth/app-consent.ts): held like any ask; `accept`
   * once the person agrees to open the server's sign-in page, `decline` or `cancel` (unanswered,
   * the run stopped, the host closed) otherwise. The ask carries no link, code or token.
   */
  consent(runId: string, signal: AbortSignal | undefined, ask: { server: string; message: string; scopes: string[] }): Promise<ElicitationReply['action']> {
    return this.hold(runId, signal, (base) => ({ ...base, server: ask.server, kind: 'consent', message: ask.message, scopes: ask.scopes })).then((reply) => reply.action);
  }

  private ask(runId: string, ask: ElicitationAsk, signal?: AbortSignal): Promise<ElicitationReply> {
    return this.hold(runId, signal, (base) => (ask.mode === 'form' ? { ...base, server: ask.server, message: ask.message, kind: 'form', fields: ask.fields } : { ...base, server: ask.server, message: ask.message, kind: 'url', url: ask.url }));
  }

  private hold(runId: string, signal: AbortSignal | undefined, make: (base: { id: string; run_id: string; asked_at: string; expires_at: string }) => PendingAsk): Promise<ElicitationReply> {
    if (signal?.aborted) return Promise.resolve({ action: 'cancel' });
    const id = randomUUID();
    const now = (this.options.now ?? (() => new Date()))();
    const pending = make({ id, run_id: runId, asked_at: now.toISOString(), expires_at: new Date(now.getTime() + this.timeoutMs).toISOString() });
    return new Promise<ElicitationReply>((resolve) => {
      const timer = setTimeout(() => settle({ action: 'cancel' }), this.timeoutMs);
      timer.unref?.();
      const onAbort = () => settle({ action: 'cancel' });
      const settle = (reply: ElicitationReply) => {
        if (this.held.get(id)?.ask !== pending) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.held.delete(id);
        this.changed();
        resolve(reply);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.held.set(id, { ask: pending, settle });
      this.changed();
    });
  }

  /** The person's answer; a form's entries are checked against the fields asked for (nothing sent when they do not fit). */
  answer(answer: AskAnswer): AnswerOutcome {
    const held = this.held.get(answer.ask_id);
    if (!held) return { answered: false, reason: 'unknown' };
    if (answer.action !== 'accept') {
      held.settle({ action: answer.action });
      return { answered: true };
    }
    if (held.ask.kind !== 'form') {
      held.settle({ action: 'accept' });
      return { answered: true };
    }
    const checked = elicitationContent(held.ask.fields, answer.entries ?? {});
    if (!checked.ok) return { answered: false, reason: 'invalid', issues: checked.issues };
    held.settle({ action: 'accept', content: checked.content });
    return { answered: true };
  }

  /** The host closes: every ask is cancelled. */
  close(): void {
    for (const held of [...this.held.values()]) held.settle({ action: 'cancel' });
  }

  private changed(): void {
    this.options.onChange(this.list());
  }
}
