import type { OAuthConsent } from '../mcp/mcp-tool-host';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import type { McpCalled } from '@shared/contracts/server-call';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { WorkflowGraph } from '@shared/workflow/document';
import type { CredentialStore } from '../credentials/credential-store';
import { collectCredentialRefs, credentialUses, resolveCredentials } from '../credentials/resolve-credentials';
import type { SecretRegistry } from '../credentials/secret-registry';
import { startToolHost } from '../mcp/mcp-tool-host';
import type { ToolHost } from '../mcp/tool-host';
import type { ElicitationAsk, ElicitationReply } from '../mcp/client-capabilities';
import type { ModelProvider } from '../providers/provider';

export interface WorkflowToolsOptions {
  graph: WorkflowGraph;
  vars: Record<string, string>;
  cwd: string;
  secrets: SecretRegistry;
  credentials?: CredentialStore;
  onProgress?: (line: string) => void;
  /** Which hosts a remote server may be on, and the privacy log of what each was sent. */
  privacy?: PrivacyPolicy;
  onSent?: (call: McpCalled) => void;
  /** A person answers a server's elicitation (the app's runs); without it servers are told Steward cannot ask. */
  onElicit?: (ask: ElicitationAsk) => Promise<ElicitationReply>;
  /** Servers are told Steward can ask (a 2026-07-28 question parks the asking agent node durably, issue 30), with or without `onElicit`. */
  elicitsDurably?: boolean;
  /** A person consents in the browser when a remote server asks for a wider scope mid-run. */
  oauthConsent?: OAuthConsent;
  /** Injected for tests and benchmarks. */
  toolHost?: ToolHost;
}

/**
 * The workflow's MCP servers for tool nodes: started once per run, on first use, and one frozen
 * snapshot taken then: every tool node validates against it, as an agent's round does against its own.
 */
export class WorkflowTools {
  private started?: Promise<{ host: ToolHost; snapshot: ToolSnapshot }>;
  private host?: ToolHost;
  private readonly teachers = new Map<string, Promise<ModelProvider>>();

  constructor(private readonly options: WorkflowToolsOptions) {}

  get(): Promise<{ host: ToolHost; snapshot: ToolSnapshot }> {
    this.started ??= this.start();
    return this.started;
  }

  private async start(): Promise<{ host: ToolHost; snapshot: ToolSnapshot }> {
    const { graph, vars, cwd, secrets } = this.options;
    let host = this.options.toolHost;
    if (!host) {
      const servers = { models: { student: { provider: 'script' }, teacher: { provider: 'script' } }, servers: graph.servers } as const;
      const refs = collectCredentialRefs(servers);
      let credentials = new Map<string, string>();
      if (refs.length > 0) {
        if (!this.options.credentials) throw new Error('this workflow uses keychain credentials, but no credential store is available');
        credentials = await resolveCredentials(refs, this.options.credentials, secrets, credentialUses(servers));
      }
      host = await startToolHost(graph.servers, { vars, overrides: graph.tool_effects, cwd, credentials, onProgress: this.options.onProgress, privacy: this.options.privacy, oauthStore: this.options.credentials, onSecret: (name, value) => void secrets.register(name, value), onSent: this.options.onSent, onElicit: this.options.onElicit, ...(this.options.elicitsDurably ? { elicitsDurably: true } : {}), oauthConsent: this.options.oauthConsent });
    }
    this.host = host;
    return { host, snapshot: await host.snapshot(0) };
  }

  /** A tool node's teacher, made once per node: its replay script goes on from item to item. */
  teacherFor(node: string, make: () => Promise<ModelProvider>): Promise<ModelProvider> {
    let teacher = this.teachers.get(node);
    if (!teacher) {
      teacher = make();
      this.teachers.set(node, teacher);
    }
    return teacher;
  }

  async close(): Promise<void> {
    if (this.host && !this.options.toolHost) await this.host.close().catch(() => undefined);
  }
}
