import { z } from 'zod';

/**
 * The local channel between the `steward` command and a running Steward host on the same data
 * folder (issue 22): the single-instance model of desktop tools (a second `code` forwards to the
 * running one). The host listens on a socket (a named pipe on Windows) only the user can open, and
 * writes where it is, with a token, into a file only the user can read. Frames are JSON lines.
 */

/** `<dataDir>/cli-channel.json`: where the host listens and the token a client proves itself with. */
export const ChannelAddress = z.strictObject({
  version: z.literal(1),
  /** A Unix socket path, or a Windows named pipe (`\\.\pipe\…`). */
  path: z.string().min(1).max(4096),
  token: z.string().regex(/^[0-9a-f]{64}$/),
  pid: z.number().int().positive(),
  shell: z.enum(['browser', 'electron']),
});
export type ChannelAddress = z.infer<typeof ChannelAddress>;

const Text = z.string().max(1_000_000);

/** What the command sends: first `hello`, then the person's answers and Ctrl+C. */
export const ChannelClientFrame = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('hello'),
    token: z.string().max(200),
    /** The command line after `steward`, exactly as typed (paths are read against `cwd`). */
    argv: z.array(z.string().max(100_000)).max(1_000),
    cwd: z.string().min(1).max(4096),
    /** The few variables a run reads from its environment (OLLAMA_HOST, STEWARD_*, …). */
    env: z.record(z.string().max(200), z.string().max(10_000)),
    /** Whether a person can answer at the command's terminal (a TTY on both ends). */
    terminal: z.boolean(),
  }),
  /** The person's reply to an `ask`: yes/no, or a line (null: they left, EOF). */
  z.strictObject({ kind: z.literal('answer'), id: z.number().int().nonnegative(), yes: z.boolean().optional(), line: z.string().max(100_000).nullable().optional() }),
  /** Ctrl+C at the command: the run stops after its current step (a wait: the command lets go). */
  z.strictObject({ kind: z.literal('interrupt') }),
  /**
   * A run the command made alone (no host was there when it started) is folded into the host's
   * journal: the events the command spooled in the data folder, by file name.
   */
  z.strictObject({ kind: z.literal('fold'), token: z.string().max(200), spool: z.string().regex(/^[A-Za-z0-9._-]{1,200}\.jsonl$/) }),
  /** `steward open`: a fresh one-time link to the host's page (issue 28). */
  z.strictObject({ kind: z.literal('launch'), token: z.string().max(200) }),
]);
export type ChannelClientFrame = z.infer<typeof ChannelClientFrame>;

/** What the host sends back: the command's output, its questions, and how it ended. */
export const ChannelHostFrame = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('stdout'), text: Text }),
  z.strictObject({ kind: z.literal('stderr'), text: Text }),
  z.strictObject({ kind: z.literal('ask'), id: z.number().int().nonnegative(), type: z.enum(['yesno', 'line']), question: Text }),
  z.strictObject({ kind: z.literal('exit'), code: z.number().int().min(0).max(255) }),
  /** Refused before anything ran (a wrong token, a malformed frame): said in words. */
  z.strictObject({ kind: z.literal('refused'), message: Text }),
  z.strictObject({ kind: z.literal('folded'), events: z.number().int().nonnegative() }),
  /** The one-time link `steward open` asked for: `http://127.0.0.1:PORT/#launch=<code>`, never the session token. */
  z.strictObject({ kind: z.literal('launch'), url: z.string().max(2_000) }),
]);
export type ChannelHostFrame = z.infer<typeof ChannelHostFrame>;

/** Environment variables a forwarded command carries to the host (nothing else of the shell's). */
export const FORWARDED_ENV = /^(OLLAMA_HOST|STEWARD_[A-Z0-9_]+|NO_COLOR|FORCE_COLOR|BROWSER|CI|TERM|COLUMNS)$/;
