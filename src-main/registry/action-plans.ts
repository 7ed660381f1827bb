import { McpServerSpec } from '@shared/contracts/spec';
import type { ServerRegistration, WorkspaceRegistration } from '@shared/contracts/host-registry';
import type { ToolEffect } from '@shared/contracts/tool-effect';
import { trustOf, type ServerTrust } from '@shared/contracts/server-trust';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { CredentialStore } from '../credentials/credential-store';
import { formatZodIssues } from '../spec/load-spec';
import { describeEffect, isDowngrade } from './effect-change';
import type { ActionPlan } from './explicit-actions';
import type { HostRegistry } from './host-registry';
import { RequestError } from './request-error';
import { SHIPPED_PACKAGES, SHIPPED_SERVERS } from './shipped-servers';
import { placeWorkspace } from './workspace-place';

/**
 * Each explicit action the page may ask for, checked and described before anything changes. What
 * needs a person: anything that runs a program of the user's choosing or widens what runs may
 * reach. Narrowing (removing, allowing less, protecting more) is only audited.
 */

export function registerServerPlan(registry: HostRegistry, reg: ServerRegistration, replace = false): ActionPlan {
  if (SHIPPED_SERVERS.some((s) => s.id === reg.id)) throw new RequestError('invalid_params', `"${reg.id}" is a shipped server's id; pick another`);
  // Registered meanwhile (another window, a hand edit): never overwritten unless this is an edit of it.
  if (!replace && registry.server(reg.id)) throw new RequestError('conflict', `a server "${reg.id}" is already registered; pick another id, or edit that one`);
  if (reg.package !== undefined && !SHIPPED_PACKAGES.has(reg.package)) {
    throw new RequestError('invalid_params', `only packages shipped with Steward can be registered by name (${[...SHIPPED_PACKAGES].join(', ')}); register any other server by its command`);
  }
  // The launch rules of a spec file apply too: no raw secret in args or env, credentials only in env.
  const asSpec = McpServerSpec.safeParse({ id: reg.id, package: reg.package, command: reg.command, url: reg.url, args: reg.args, env: reg.env, headers: reg.headers, oauth: reg.oauth });
  if (!asSpec.success) throw new RequestError('invalid_params', `server ${reg.id}: ${formatZodIssues(asSpec.error)}`);
  if (reg.url !== undefined) return registerRemotePlan(registry, reg, reg.url);
  const what = reg.command !== undefined ? `command ${reg.command}` : `package ${reg.package}`;
  const env = Object.entries(reg.env).map(([k, v]) => `${k}=${v}`);
  return {
    action: 'servers.register',
    subject: reg.id,
    title: `register the MCP server "${reg.id}" (${reg.label}), which runs as you`,
    detail: [`${what}${reg.args.length ? ` ${reg.args.join(' ')}` : ''}`, env.length ? `environment: ${env.join(', ')}` : ''].filter(Boolean).join('\n'),
    // A command is any program; a shipped package with arguments of the page's choosing could open any folder.
    needsConfirmation: true,
    apply: () => registry.putUserServer({ ...reg, source: 'user' }),
  };
}

/**
 * A remote server starts nothing here, but a run sends it data: a person confirms, and the privacy
 * policy still decides at run time whether its host may be reached.
 */
function registerRemotePlan(registry: HostRegistry, reg: ServerRegistration, url: string): ActionPlan {
  const headers = Object.entries(reg.headers ?? {}).map(([k, v]) => `${k}: ${v}`);
  return {
    action: 'servers.register',
    subject: reg.id,
    title: `register the remote MCP server "${reg.id}" (${reg.label}), which runs may send data to`,
    detail: [`url ${url}`, headers.length ? `headers: ${headers.join(', ')}` : '', oauthDetail(reg.oauth), 'runs reach it only when the privacy policy allows its host (loopback always)'].filter(Boolean).join('\n'),
    needsConfirmation: true,
    apply: () => registry.putUserServer({ ...reg, source: 'user' }),
  };
}

/** The sign-in client a person confirms: its id, and its secret by keychain reference (never a value). */
function oauthDetail(oauth: ServerRegistration['oauth']): string {
  if (oauth === undefined) return '';
  if (oauth.grant === 'client_credentials') return `machine-to-machine client ${oauth.client_id} (${oauth.private_key ? `private key ${oauth.private_key}` : `secret ${oauth.client_secret ?? ''}`}): runs get their own token, nobody signs in`;
  if (oauth.grant === 'enterprise_managed') return `enterprise-managed client ${oauth.client_id}${oauth.client_secret ? ` (secret ${oauth.client_secret})` : ''}: runs exchange the ID token ${oauth.idp?.id_token ?? ''} at ${oauth.idp?.issuer ?? 'the identity provider'} (client ${oauth.idp?.client_id ?? ''}) for their own token, nobody signs in`;
  return `sign-in client ${oauth.client_id}${oauth.client_secret ? ` (secret ${oauth.client_secret})` : ''}`;
}

export function removeServerPlan(registry: HostRegistry, id: string): ActionPlan {
  const server = registry.server(id);
  if (!server) throw new RequestError('not_found', `no registered server "${id}"`);
  if (server.source === 'shipped') throw new RequestError('invalid_params', `"${id}" ships with Steward and cannot be removed`);
  return { action: 'servers.remove', subject: id, title: `remove the MCP server "${id}"`, detail: server.command ?? server.package ?? server.url ?? '', needsConfirmation: false, apply: () => registry.removeUserServer(id) };
}

export function registerWorkspacePlan(registry: HostRegistry, dataDir: string, reg: WorkspaceRegistration, replace = false): ActionPlan {
  if (!replace && registry.workspace(reg.id)) throw new RequestError('conflict', `a workspace "${reg.id}" is already registered; pick another id, or remove that one first`);
  const place = placeWorkspace(reg.path, dataDir);
  return {
    action: 'workspaces.register',
    subject: reg.id,
    title: `let runs work in the folder ${place.path} (workspace "${reg.id}")`,
    detail: place.in_data_folder ? `${place.path} (inside Steward's data folder)` : `${place.path}: agents can read and change what is in it`,
    needsConfirmation: !place.in_data_folder,
    apply: () => registry.putWorkspace({ id: reg.id, label: reg.label ?? reg.id, path: place.path, in_data_folder: place.in_data_folder }),
  };
}

export function removeWorkspacePlan(registry: HostRegistry, id: string): ActionPlan {
  const ws = registry.workspace(id);
  if (!ws) throw new RequestError('not_found', `no registered workspace "${id}"`);
  return { action: 'workspaces.remove', subject: id, title: `forget the workspace "${id}"`, detail: ws.path, needsConfirmation: false, apply: () => registry.removeWorkspace(id) };
}

function normaliseHosts(hosts: readonly string[]): string[] {
  return [...new Set(hosts.map((h) => h.trim().toLowerCase()).filter(Boolean))].sort();
}

export function setPrivacyPlan(registry: HostRegistry, policy: PrivacyPolicy): ActionPlan {
  const before = normaliseHosts(registry.privacy().allowed_hosts);
  const after = normaliseHosts(policy.allowed_hosts);
  const added = after.filter((h) => !before.includes(h));
  const removed = before.filter((h) => !after.includes(h));
  const change = [added.length ? `allow ${added.join(', ')}` : '', removed.length ? `no longer allow ${removed.join(', ')}` : ''].filter(Boolean).join('; ');
  return {
    action: 'privacy.set',
    subject: 'privacy',
    title: added.length ? `let runs send data to ${added.join(', ')}` : 'change the privacy policy',
    detail: `${change || 'no change'} (allowed hosts after: ${after.join(', ') || 'none, local only'})`,
    needsConfirmation: added.length > 0,
    apply: () => registry.setPrivacy({ allowed_hosts: after }),
  };
}

export function setEffectPlan(registry: HostRegistry, server: string, tool: string, effect: ToolEffect | null): ActionPlan {
  if (!registry.server(server)) throw new RequestError('not_found', `no registered server "${server}"`);
  const current = registry.effectiveEffect(server, tool);
  const rest = registry.effects().filter((o) => !(o.server === server && o.tool === tool));
  const next = registry.effectiveEffect(server, tool, effect === null ? rest : [...rest, { server, tool, effect }]);
  const downgrade = isDowngrade(current, next);
  return {
    action: 'effects.set',
    subject: `${server}/${tool}`,
    title: downgrade ? `make the tool ${server}/${tool} less protected` : `set the effect of ${server}/${tool}`,
    detail: `${describeEffect(current)} → ${describeEffect(next)}${effect === null ? ' (back to the default)' : ''}`,
    needsConfirmation: downgrade,
    apply: () => registry.setEffect(server, tool, effect),
  };
}

export function setCredentialPlan(credentials: CredentialStore, name: string, value: string): ActionPlan {
  return {
    action: 'credentials.set',
    subject: name,
    title: `store the credential "${name}" in the OS keychain`,
    detail: `keychain:${name} (the value is not shown)`,
    needsConfirmation: true,
    apply: () => credentials.set(name, value),
  };
}

export function deleteCredentialPlan(credentials: CredentialStore, name: string, deleted: { value: boolean }): ActionPlan {
  return {
    action: 'credentials.delete',
    subject: name,
    title: `delete the credential "${name}"`,
    detail: `keychain:${name}`,
    needsConfirmation: false,
    apply: async () => {
      deleted.value = await credentials.delete(name);
    },
  };
}

/**
 * A server's trust level (issue 31). Trusted widens what runs do unreviewed — values copied from its
 * results no longer send a call to review by the untrusted-provenance rule — so a person confirms it;
 * back to untrusted only protects more, and is only audited.
 */
export function setTrustPlan(registry: HostRegistry, id: string, trust: ServerTrust): ActionPlan {
  const server = registry.server(id);
  if (!server) throw new RequestError('not_found', `no registered server "${id}"`);
  const current = trustOf(server);
  return {
    action: 'servers.trust',
    subject: id,
    title: trust === 'trusted' ? `mark the server "${id}" trusted: values copied from its results are no longer sent to review by the untrusted-provenance rule` : `mark the server "${id}" untrusted`,
    detail: `${current} → ${trust}${current === trust ? ' (unchanged)' : ''}`,
    needsConfirmation: trust === 'trusted' && current !== 'trusted',
    apply: () => registry.setTrust(id, trust),
  };
}
