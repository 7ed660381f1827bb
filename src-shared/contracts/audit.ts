import { z } from 'zod';

/**
 * The explicit actions the page may ask the host for (issue 7). Each is recorded in the audit log
 * the user sees in Settings; the risky ones wait for a person's confirmation first.
 */
export const AUDIT_ACTIONS = [
  'servers.register',
  'servers.remove',
  /** A server's trust level changed (issue 31): whether values copied from its results are reviewed. */
  'servers.trust',
  'workspaces.register',
  'workspaces.remove',
  'privacy.set',
  'effects.set',
  'credentials.set',
  'credentials.delete',
] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof AuditAction>;

/** Who decided: a native dialog (Electron), a code typed from the host's terminal (browser), no one needed to, the page withdrew its request, or a person typed the command (`steward servers trust`). */
export const DecidedBy = z.enum(['user_dialog', 'terminal_code', 'automatic', 'page', 'command_line']);
export type DecidedBy = z.infer<typeof DecidedBy>;

export const AuditRecord = z
  .object({
    at: z.iso.datetime(),
    action: AuditAction,
    /** What it was about: a server or workspace id, a credential name, `server/tool`, `privacy`. */
    subject: z.string().max(300),
    /** What changed, for a person; never a secret value. */
    detail: z.string().max(2000),
    decided_by: DecidedBy,
    outcome: z.enum(['approved', 'denied']),
    /** Why a denial happened when no one said no (expired, too many wrong codes). */
    reason: z.string().max(300).optional(),
  })
  .strict();
export type AuditRecord = z.infer<typeof AuditRecord>;

const Done = z.object({ status: z.literal('done') }).strict();
const Denied = z.object({ status: z.literal('denied'), message: z.string() }).strict();
/**
 * The browser shell: the host printed a one-time code on its terminal with what is being approved;
 * the page asks the person to type it and sends it with `actions.confirm`.
 */
const NeedsConfirmation = z
  .object({
    status: z.literal('needs_confirmation'),
    confirmation_id: z.string(),
    /** What the person approves, for the page's dialog (the same text the terminal shows). */
    prompt: z.string(),
    expires_at: z.iso.datetime(),
  })
  .strict();
const WrongCode = z.object({ status: z.literal('wrong_code'), attempts_left: z.number().int().positive() }).strict();

/** What an explicit action answers: done, denied, or waiting for the code from the terminal. */
export const ActionResult = z.discriminatedUnion('status', [Done, Denied, NeedsConfirmation]);
export type ActionResult = z.infer<typeof ActionResult>;

/** What a typed code answers: done, denied (no attempts left, expired, unknown), or try again. */
export const ConfirmResult = z.discriminatedUnion('status', [Done, Denied, WrongCode]);
export type ConfirmResult = z.infer<typeof ConfirmResult>;

export const ConfirmationCode = z.string().regex(/^\d{3}-?\d{3}$/, 'the code is six digits, as printed in the terminal');
