import { join } from 'node:path';
import {
  EffectsFile,
  PrivacyFile,
  ServersFile,
  WorkspacesFile,
  type EffectOverride,
  type RegisteredServer,
  type Workspace,
} from '@shared/contracts/host-registry';
import { LOCAL_ONLY, type PrivacyPolicy } from '@shared/policy/privacy';
import type { ToolEffect } from '@shared/contracts/tool-effect';
import { ServerTrustFile, type ServerTrust } from '@shared/contracts/server-trust';
import { registeredToolEffect } from '@shared/policy/effect-registry';
import { readJsonFile, writeJsonAtomic } from './json-store';
import { SHIPPED_SERVERS } from './shipped-servers';

/**
 * What the host holds for the page, in the data folder: registered servers, workspaces, the privacy
 * policy and the user's tool-effect overrides. Read from disk on every use (small files; another
 * host process or a hand edit is seen at once), written whole and atomically.
 */
export class HostRegistry {
  private readonly files;

  constructor(dataDir: string) {
    this.files = {
      servers: join(dataDir, 'servers.json'),
      workspaces: join(dataDir, 'workspaces.json'),
      privacy: join(dataDir, 'privacy.json'),
      effects: join(dataDir, 'tool-effects.json'),
      trust: join(dataDir, 'server-trust.json'),
    };
  }

  servers(): RegisteredServer[] {
    const user = readJsonFile(this.files.servers, ServersFile, { servers: [] }).servers.filter((s) => s.source === 'user');
    // A shipped server's entry is fixed; the trust level a person set for it is kept beside it (issue 31).
    const trust = new Map(readJsonFile(this.files.trust, ServerTrustFile, { servers: [] }).servers.map((t) => [t.id, t.trust]));
    const shipped = SHIPPED_SERVERS.map((s) => {
      const level = trust.get(s.id);
      return level === undefined ? s : { ...s, trust: level };
    });
    return [...shipped, ...user.filter((s) => !SHIPPED_SERVERS.some((x) => x.id === s.id))];
  }

  /** Sets a server's trust level: a shipped server's in server-trust.json, a registered one's in its entry. */
  setTrust(id: string, trust: ServerTrust): void {
    const server = this.server(id);
    if (!server) throw new Error(`no registered server "${id}"`);
    if (server.source === 'user') {
      const { trust: _old, ...rest } = server;
      this.putUserServer(trust === 'trusted' ? { ...rest, trust } : rest);
      return;
    }
    const others = readJsonFile(this.files.trust, ServerTrustFile, { servers: [] }).servers.filter((t) => t.id !== id);
    // Untrusted is the default: only a trusted level is kept.
    writeJsonAtomic(this.files.trust, { servers: trust === 'trusted' ? [...others, { id, trust }] : others });
  }

  server(id: string): RegisteredServer | undefined {
    return this.servers().find((s) => s.id === id);
  }

  putUserServer(server: RegisteredServer): void {
    const user = this.servers().filter((s) => s.source === 'user' && s.id !== server.id);
    writeJsonAtomic(this.files.servers, { servers: [...user, { ...server, source: 'user' }] });
  }

  removeUserServer(id: string): void {
    writeJsonAtomic(this.files.servers, { servers: this.servers().filter((s) => s.source === 'user' && s.id !== id) });
  }

  workspaces(): Workspace[] {
    return readJsonFile(this.files.workspaces, WorkspacesFile, { workspaces: [] }).workspaces;
  }

  workspace(id: string): Workspace | undefined {
    return this.workspaces().find((w) => w.id === id);
  }

  putWorkspace(workspace: Workspace): void {
    writeJsonAtomic(this.files.workspaces, { workspaces: [...this.workspaces().filter((w) => w.id !== workspace.id), workspace] });
  }

  removeWorkspace(id: string): void {
    writeJsonAtomic(this.files.workspaces, { workspaces: this.workspaces().filter((w) => w.id !== id) });
  }

  privacy(): PrivacyPolicy {
    return readJsonFile(this.files.privacy, PrivacyFile, LOCAL_ONLY);
  }

  setPrivacy(policy: PrivacyPolicy): void {
    writeJsonAtomic(this.files.privacy, PrivacyFile.parse(policy));
  }

  effects(): EffectOverride[] {
    return readJsonFile(this.files.effects, EffectsFile, { overrides: [] }).overrides;
  }

  setEffect(server: string, tool: string, effect: ToolEffect | null): void {
    const rest = this.effects().filter((o) => !(o.server === server && o.tool === tool));
    writeJsonAtomic(this.files.effects, { overrides: effect === null ? rest : [...rest, { server, tool, effect }] });
  }

  /** The effect a run would use for this tool: the user's override, else the shipped default, else missing (protected). */
  effectiveEffect(serverId: string, tool: string, overrides: readonly EffectOverride[] = this.effects()): ToolEffect {
    const server = this.server(serverId);
    return registeredToolEffect({ servers: server ? [server] : [], overrides }, serverId, tool).effect;
  }
}
