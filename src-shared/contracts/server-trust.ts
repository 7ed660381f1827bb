import { z } from 'zod';

/**
 * How far the text a server returns may be believed (issue 31, "Where did this value come from?").
 * `untrusted`: its results may carry words written by someone other than the person — a file, a web
 * page, a note another agent stored — so a value copied from them into a tool call's argument is
 * marked, and the review rule `untrusted_provenance` sends that call to review even at phase 4.
 *
 * The default is untrusted for every server, the shipped filesystem and memory servers included:
 * what they return is only as trustworthy as whoever last wrote the file or the memory, which is
 * often not the person (a downloaded document, a mail saved to disk, an agent's own earlier notes).
 * A person marks a server trusted in the MCP registry (or `trust` in a server entry) when they
 * alone write what it returns.
 */
export const SERVER_TRUST_LEVELS = ['trusted', 'untrusted'] as const;
export const ServerTrust = z.enum(SERVER_TRUST_LEVELS);
export type ServerTrust = z.infer<typeof ServerTrust>;

export const DEFAULT_SERVER_TRUST: ServerTrust = 'untrusted';

export const SERVER_TRUST_LABELS = {
  trusted: 'Trusted: only you write what it returns',
  untrusted: 'Untrusted: what it returns may be written by others',
} satisfies Record<ServerTrust, string>;

/** A server entry's trust level, its default when absent. */
export function trustOf(server: { trust?: ServerTrust | undefined }): ServerTrust {
  return server.trust ?? DEFAULT_SERVER_TRUST;
}

/** What each level means for the review rule `untrusted_provenance`, in words (the registry's control and `steward servers` say it). */
export const SERVER_TRUST_MEANING = {
  trusted:
    'Values copied from its results into a later tool call are still shown with their source, but the rule "an argument carries a value from an untrusted tool result" no longer sends that call to review, also at phase 4 (Autonomous). Mark a server trusted only when you alone write what it returns: a file someone sent you, a web page or a note another agent stored could carry instructions the student would then follow unreviewed.',
  untrusted:
    'A tool call whose arguments carry a value copied from its results goes to review, also at phase 4 (Autonomous), while the workflow keeps the rule "an argument carries a value from an untrusted tool result" on (the default).',
} satisfies Record<ServerTrust, string>;

/**
 * The trust levels a person set for servers whose entries they cannot edit (the shipped ones), kept
 * in the data folder beside servers.json (server-trust.json). A registered server's own level lives
 * in its entry.
 */
export const ServerTrustFile = z
  .object({
    servers: z.array(z.object({ id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/), trust: ServerTrust }).strict()).max(1000),
  })
  .strict();
export type ServerTrustFile = z.infer<typeof ServerTrustFile>;
