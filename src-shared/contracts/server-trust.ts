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
