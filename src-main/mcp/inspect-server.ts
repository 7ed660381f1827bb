import { isCredentialRef } from '@shared/contracts/credentials';
import type { InspectedPrompt, InspectedResource, InspectedTool } from '@shared/contracts/host-api';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { DeprecatedFeature } from '@shared/contracts/mcp-revision';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { serverTransport } from '@shared/policy/expand-workflow';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { CredentialStore } from '../credentials/credential-store';
import { resolveCredentials } from '../credentials/resolve-credentials';
import { SecretRegistry } from '../credentials/secret-registry';
import { startToolHost } from './mcp-tool-host';

/**
 * The MCP registry's "Inspect": start one registered server as a run would, list its tools with
 * Steward's own effect metadata (shipped or missing: the user's overrides are listed apart) and the
 * server's annotations as hints.
 */
export async function inspectServer(
  registered: RegisteredServer,
  options: { workspace?: string; cwd: string; credentials?: CredentialStore; privacy?: PrivacyPolicy },
): Promise<{ server_name?: string; protocol_version?: string; deprecated_features?: DeprecatedFeature[]; tools: InspectedTool[]; resources: InspectedResource[]; prompts: InspectedPrompt[] }> {
  const secrets = new SecretRegistry();
  const server: McpServerSpec = {
    id: registered.id,
    ...serverTransport(registered),
    args: registered.args,
    ...(registered.url === undefined ? { env: registered.env } : {}),
  };
  try {
    const refs = [...Object.values(server.env ?? {}), ...Object.values(server.headers ?? {})].filter(isCredentialRef);
    if (refs.length > 0 && !options.credentials) throw new Error('this server needs keychain credentials and no credential store is available');
    const credentials = refs.length > 0 && options.credentials ? await resolveCredentials(refs, options.credentials, secrets, new Map(refs.map((r) => [r, `server ${server.id}'s credential`]))) : new Map<string, string>();
    const vars: Record<string, string> = { specDir: options.cwd };
    if (options.workspace !== undefined) vars.workspace = options.workspace;
    // A remote server is reached only where the privacy policy allows, as in a run.
    const host = await startToolHost([server], { vars, overrides: {}, cwd: options.cwd, credentials, privacy: options.privacy, oauthStore: options.credentials });
    try {
      const snapshot = await host.snapshot(0);
      const [catalog] = await host.catalog();
      const status = host.status()[0];
      return {
        server_name: status?.server_name,
        ...(status?.protocol_version === undefined ? {} : { protocol_version: status.protocol_version }),
        ...(status?.deprecated_features === undefined ? {} : { deprecated_features: status.deprecated_features }),
        tools: snapshot.tools.map((t) => ({
          name: t.name,
          description: t.description,
          input_schema: t.input_schema,
          effect: t.effect,
          effect_source: t.effect_source,
          hints: t.hints,
        })),
        resources: (catalog?.resources ?? []).map((r) => ({ uri: r.uri, name: r.name, ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mime_type: r.mimeType } : {}) })),
        prompts: (catalog?.prompts ?? []).map((p) => ({ name: p.name, ...(p.description ? { description: p.description } : {}), arguments: (p.arguments ?? []).map((a) => ({ name: a.name, required: a.required === true })) })),
      };
    } finally {
      await host.close();
    }
  } catch (err) {
    throw new Error(secrets.maskText(err instanceof Error ? err.message : String(err)));
  }
}
