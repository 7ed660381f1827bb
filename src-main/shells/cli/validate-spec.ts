import { EFFECT_LABELS } from '@shared/contracts/tool-effect';
import { PHASE_LABELS } from '@shared/contracts/spec';
import { substituteVars } from '@shared/util/substitute';
import { LOCAL_ONLY, type PrivacyPolicy } from '@shared/policy/privacy';
import type { CredentialStore } from '../../credentials/credential-store';
import { collectCredentialRefs, resolveCredentials } from '../../credentials/resolve-credentials';
import { SecretRegistry } from '../../credentials/secret-registry';
import { startToolHost } from '../../mcp/mcp-tool-host';
import { resolveProvider } from '../../providers/resolve-provider';
import { loadDocumentFile } from '../../workflow/load-workflow';
import { validateWorkflow } from './validate-workflow';

export interface ValidationReport {
  lines: string[];
  /** The first problem found, as one clear message; absent when the spec is valid. */
  error?: string;
}

/**
 * `steward validate`: the checks a run would hit before its first round, without calling a model
 * (a workflow file: validate-workflow.ts):
 * schema, script, variables, credentials present in the keychain (by name: no value is read),
 * replay scripts, servers start, allowlisted tools exist. Remote servers are reached only on the
 * hosts `privacy` allows (loopback always), as a run would.
 */
export async function validateSpecFile(file: string, credentials: () => CredentialStore, privacy: PrivacyPolicy = LOCAL_ONLY): Promise<ValidationReport> {
  const lines: string[] = [];
  const secrets = new SecretRegistry();
  try {
    const document = loadDocumentFile(file);
    if (document.kind === 'workflow') return await validateWorkflow(document.workflow, credentials, secrets, privacy);
    const loaded = document.spec;
    const { spec } = loaded;
    const vars: Record<string, string> = { specDir: loaded.specDir };
    if (loaded.workspace !== undefined) vars.workspace = loaded.workspace;
    substituteVars([spec.instructions, spec.task], vars, 'spec');
    const script = loaded.script ? substituteVars(loaded.script, vars, 'script') : undefined;
    for (const role of ['student', 'teacher'] as const) {
      if (spec.models[role].provider === 'script') resolveProvider(spec.models[role], role, { script });
    }
    const phase = spec.supervision.enabled ? `phase ${spec.supervision.phase} · ${PHASE_LABELS[spec.supervision.phase]}` : 'supervision off';
    lines.push(`spec: ${spec.name} (${spec.id}), ${spec.servers.length} server(s), ${phase}`);

    // Servers are started as a run would start them, credentials included; values are never printed.
    const refs = collectCredentialRefs(spec);
    const resolved = refs.length > 0 ? await resolveCredentials(refs, credentials(), secrets) : new Map<string, string>();
    if (refs.length > 0) lines.push(`  credentials: ${refs.join(', ')} (in the keychain)`);

    const host = await startToolHost(spec.servers, { vars, overrides: spec.tool_effects, cwd: loaded.specDir, credentials: resolved, oauthStore: credentials(), privacy });
    try {
      const snapshot = await host.snapshot(0);
      for (const tool of snapshot.tools) {
        lines.push(`  tool ${tool.server}/${tool.name}: ${EFFECT_LABELS[tool.effect.effect]} (${tool.effect_source})`);
      }
    } finally {
      await host.close();
    }
    return { lines };
  } catch (err) {
    return { lines, error: secrets.maskText(err instanceof Error ? err.message : String(err)) };
  }
}
