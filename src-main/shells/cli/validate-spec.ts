import { effectWords } from '@shared/contracts/tool-effect';
import { PHASE_LABELS } from '@shared/contracts/spec';
import { provenanceRuleWarning } from '@shared/policy/provenance-warning';
import { substituteVars } from '@shared/util/substitute';
import { LOCAL_ONLY, type PrivacyPolicy } from '@shared/policy/privacy';
import type { CredentialStore } from '../../credentials/credential-store';
import { collectCredentialRefs, credentialUses, resolveCredentials } from '../../credentials/resolve-credentials';
import { SecretRegistry } from '../../credentials/secret-registry';
import { serverLines, startToolHost } from '../../mcp/mcp-tool-host';
import { resolveProvider } from '../../providers/resolve-provider';
import type { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { inspectServer } from '../../mcp/inspect-server';
import { HostRegistry } from '../../registry/host-registry';
import { defaultDataDir } from '../../util/data-dir';
import { loadDocumentFile, type LoadedDocument } from '../../workflow/load-workflow';
import { ToolListCache, validateDraft } from '../../workflow/validate-draft';
import { workflowLibrary } from '../../workflow/workflow-library';
import { problemsText, validateWorkflow } from './validate-workflow';
import type { ValidationReport } from './validation-report';

/**
 * Where the document comes from: a file (an app-format one names `dataDir`'s registry), or `load`
 * (a stored workflow). `app`: the document in the app's format, when it is one: it is checked first
 * exactly as the host checks the editor's draft (workflows.validate), every problem listed.
 */
export interface ValidateSource {
  dataDir?: string;
  load?: () => LoadedDocument;
  app?: () => HostedWorkflowGraph | undefined;
}

export type { ValidationReport } from './validation-report';

/**
 * `steward validate`: the checks a run would hit before its first round, without calling a model
 * (a workflow file: validate-workflow.ts):
 * schema, script, variables, credentials present in the keychain (by name: no value is read),
 * replay scripts, servers start, allowlisted tools exist. Remote servers are reached only on the
 * hosts `privacy` allows (loopback always), as a run would.
 */
export async function validateSpecFile(file: string, credentials: () => CredentialStore, privacy: PrivacyPolicy = LOCAL_ONLY, options: ValidateSource = {}): Promise<ValidationReport> {
  const lines: string[] = [];
  const secrets = new SecretRegistry();
  try {
    const app = options.app?.();
    if (app) {
      const dataDir = options.dataDir ?? defaultDataDir();
      const tools = new ToolListCache((server, workspace) => inspectServer(server, { workspace, cwd: dataDir, credentials: credentials(), privacy }));
      const { problems } = await validateDraft(app, new HostRegistry(dataDir), tools, workflowLibrary(dataDir).interfaces());
      if (problems.length > 0) return { lines: [`workflow: ${app.name} (${app.id}), ${app.nodes.length} nodes, ${app.servers.length} server(s)`], error: problemsText(problems) };
    }
    const document = options.load ? options.load() : loadDocumentFile(file, options.dataDir !== undefined ? { dataDir: options.dataDir } : {});
    if (document.kind === 'workflow') return await validateWorkflow(document.workflow, credentials, secrets, privacy, workflowLibrary(options.dataDir ?? defaultDataDir()).interfaces());
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
    const resolved = refs.length > 0 ? await resolveCredentials(refs, credentials(), secrets, credentialUses(spec)) : new Map<string, string>();
    if (refs.length > 0) lines.push(`  credentials: ${refs.join(', ')} (in the keychain)`);

    const host = await startToolHost(spec.servers, { vars, overrides: spec.tool_effects, cwd: loaded.specDir, credentials: resolved, oauthStore: credentials(), privacy });
    try {
      const snapshot = await host.snapshot(0);
      lines.push(...serverLines(host.status()));
      for (const tool of snapshot.tools) {
        lines.push(`  tool ${tool.server}/${tool.name}: ${effectWords(tool.effect.effect, tool.effect_source)}`);
      }
    } finally {
      await host.close();
    }
    const warning = provenanceRuleWarning(spec.supervision, `The agent ${spec.name} (${spec.id})`);
    return { lines, ...(warning !== undefined ? { warnings: [warning] } : {}) };
  } catch (err) {
    return { lines, error: secrets.maskText(err instanceof Error ? err.message : String(err)) };
  }
}
