import { z } from 'zod';
import { CredentialRef } from './credentials';
import { checkServerTransport, ServerHeaders, ServerOAuthClient, ServerUrl } from './remote-server';
import { ToolEffect } from './tool-effect';
import { ServerTrust } from './server-trust';
import { PrivacyPolicy } from '../policy/privacy';

/**
 * What the host holds for the page (issue 7): the MCP servers and workspace folders a run may use,
 * the privacy policy and the user's tool-effect overrides. The page refers to servers and
 * workspaces by id; commands, packages, arguments and paths never come from it at run time.
 */

export const RegistryId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'use lowercase letters, digits, - and _ (at most 64)');
export type RegistryId = z.infer<typeof RegistryId>;

const EnvKey = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'an environment variable name');

/** What a person registers: a server Steward ships (by package) or any command. */
export const ServerRegistration = z
  .object({
    id: RegistryId,
    label: z.string().min(1).max(120),
    package: z.string().min(1).max(214).optional(),
    command: z.string().min(1).max(4096).optional(),
    /** A remote server: Streamable HTTP (HTTP+SSE as fallback); runs reach it only where the privacy policy allows. */
    url: ServerUrl.optional(),
    args: z.array(z.string().max(4096)).max(64).default([]),
    /** Only `keychain:NAME` references: the value stays in the OS keychain. */
    env: z.record(EnvKey, CredentialRef).default({}),
    /** A remote server's request headers, `keychain:NAME` only. */
    headers: ServerHeaders.optional(),
    /** A remote server's OAuth client registered beforehand (its secret a `keychain:NAME` only); else Steward registers itself. */
    oauth: ServerOAuthClient.optional(),
    /** Whether what it returns may be believed (server-trust.ts); absent: untrusted. */
    trust: ServerTrust.optional(),
  })
  .strict()
  .superRefine(checkServerTransport);
export type ServerRegistration = z.infer<typeof ServerRegistration>;

export const ServerSource = z.enum(['shipped', 'user']);

/** A registered server: shipped entries are built in (fixed args), user entries live in servers.json. */
export const RegisteredServer = z
  .object({
    id: RegistryId,
    label: z.string().min(1).max(120),
    package: z.string().min(1).optional(),
    command: z.string().min(1).optional(),
    url: ServerUrl.optional(),
    args: z.array(z.string()).default([]),
    env: z.record(EnvKey, CredentialRef).default({}),
    headers: ServerHeaders.optional(),
    oauth: ServerOAuthClient.optional(),
    /** Whether what it returns may be believed (server-trust.ts); absent: untrusted (also every shipped server). */
    trust: ServerTrust.optional(),
    source: ServerSource,
  })
  .strict();
export type RegisteredServer = z.infer<typeof RegisteredServer>;

export const ServersFile = z.object({ servers: z.array(RegisteredServer) }).strict();

export const Workspace = z
  .object({
    id: RegistryId,
    label: z.string().min(1).max(120),
    /** Absolute folder on the host. */
    path: z.string().min(1),
    /** Inside the data folder (e.g. the demo copies): registered without asking. */
    in_data_folder: z.boolean(),
  })
  .strict();
export type Workspace = z.infer<typeof Workspace>;

export const WorkspaceRegistration = z
  .object({ id: RegistryId, label: z.string().min(1).max(120).optional(), path: z.string().min(1).max(4096) })
  .strict();
export type WorkspaceRegistration = z.infer<typeof WorkspaceRegistration>;

export const WorkspacesFile = z.object({ workspaces: z.array(Workspace) }).strict();

export const ToolName = z.string().min(1).max(200);

/** The user's effect metadata for one tool of one registered server: authoritative over the shipped default. */
export const EffectOverride = z.object({ server: RegistryId, tool: ToolName, effect: ToolEffect }).strict();
export type EffectOverride = z.infer<typeof EffectOverride>;

export const EffectsFile = z.object({ overrides: z.array(EffectOverride) }).strict();

export const PrivacyFile = PrivacyPolicy;
