import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpServerSpec } from '@shared/contracts/spec';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { setOwn } from '@shared/util/set-own';
import { runCli, type CliIo } from '../../shells/cli/cli';
import { errorMessage } from '../errors';
import { connectTarget, resolveTarget } from '../server-target';
import { CLIENT_METADATA_URL_ENV } from '../oauth/client-metadata';
import { headlessBrowser } from './headless-browser';
import { conformanceStore, wipeConformanceStore } from './conformance-store';

/**
 * Steward as a person uses it, driven by the official conformance suite
 * (`@modelcontextprotocol/conformance`): `steward-cli-client <url>` with the scenario in
 * MCP_CONFORMANCE_SCENARIO. The scenario's server goes into a workflow file of the person's own
 * (server `conformance`, its url; a client registered beforehand as the scenario gives it, its
 * secret or private key stored with `steward credentials set`), then through the `steward` CLI:
 *
 *   steward mcp sign-in FILE conformance   (auth/* scenarios that sign a person in)
 *   steward run FILE --yes                 (one tool node per tool the server lists)
 *
 * No terminal: nobody types, so a server's form is answered with its defaults (SEP-1034). The
 * person at the browser is a headless visit: the CLI opens links with `$BROWSER`, which is this
 * file again with `--visit` (the suite's authorization server approves on its own). The tool names
 * come from the server's list, as a person reads them in the registry's Inspect.
 *
 * Credentials go to the OS keychain under a service of their own (STEWARD_CONFORMANCE_KEYCHAIN_SERVICE),
 * emptied at the end; without a session bus, an in-memory store stands in and says so on stderr.
 *
 * `auth/cross-app-access-complete-flow` (2026-07-28: `auth/enterprise-managed-authorization`): the
 * server is registered with enterprise-managed authorization (`oauth.grant: "enterprise_managed"`),
 * the person's ID token from the scenario's identity provider stored with `steward credentials set`
 * as their organisation's tooling would; `steward mcp sign-in` then checks the exchange.
 *
 * `auth/basic-cimd`: the person has set Steward's client ID metadata document address
 * (STEWARD_OAUTH_CLIENT_METADATA_URL, oauth/client-metadata.ts) to the one the scenario's
 * authorization server treats as hosted (the suite's own test address; its server does not fetch it).
 */
const SERVER = 'conformance';
const SUITE_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const SELF = fileURLToPath(import.meta.url);

async function main(): Promise<number> {
  if (process.argv[2] === '--visit') {
    await headlessBrowser(new URL(process.argv[3] ?? ''));
    return 0;
  }
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const url = process.argv[2];
  if (!url) throw new Error('usage: steward-cli-client <server-url> (MCP_CONFORMANCE_SCENARIO names the scenario)');
  if (scenario === 'auth/basic-cimd') process.env[CLIENT_METADATA_URL_ENV] = SUITE_CLIENT_METADATA_URL;
  const store = conformanceStore();
  const dir = mkdtempSync(join(tmpdir(), 'steward-conformance-'));
  const started = Date.now();
  const log = (line: string) => process.stderr.write(`${line} (+${Date.now() - started} ms)\n`);
  const io: CliIo = {
    stdout: (text) => process.stderr.write(text),
    stderr: (text) => process.stderr.write(text),
    env: { ...process.env, BROWSER: `${process.execPath} ${SELF} --visit` },
    credentials: () => store,
    cwd: dir,
  };
  const steward = async (args: string[], extra: Partial<CliIo> = {}) => {
    log(`[steward] $ steward ${args.join(' ')}`);
    const code = await runCli(args, { ...io, ...extra });
    log(`[steward] exit ${code}`);
    return code;
  };
  try {
    const server = McpServerSpec.parse({ id: SERVER, url, ...(await registeredClient(scenario, steward)) });
    const file = join(dir, 'conformance.workflow.json');
    writeFileSync(file, JSON.stringify(workflow(server, [])));
    if (scenario.startsWith('auth/') && server.oauth?.grant !== 'client_credentials' && (await steward(['mcp', 'sign-in', file, SERVER])) !== 0) return 1;
    const tools = await listTools(server, store);
    log(`[steward] ${scenario}: ${tools.length} tool(s): ${tools.map((t) => t.name).join(', ')}`);
    writeFileSync(file, JSON.stringify(workflow(server, scenarioCalls() ?? schemaEcho(scenario, tools) ?? tools.map((tool) => ({ name: tool.name, arguments: sampleArguments(tool) })))));
    return await steward(['run', file, '--yes', '--data-dir', join(dir, 'data')]);
  } finally {
    await wipeConformanceStore(store);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A client the scenario registered beforehand (MCP_CONFORMANCE_CONTEXT), as a person registers it:
 * the secret or private key into the keychain with `steward credentials set` (read from standard
 * input), the spec referring to it. `auth/client-credentials-*`: a machine-to-machine client.
 */
async function registeredClient(scenario: string, steward: (args: string[], extra?: Partial<CliIo>) => Promise<number>): Promise<{ oauth?: Record<string, unknown> }> {
  const context = z
    .object({
      client_id: z.string(),
      client_secret: z.string().optional(),
      private_key_pem: z.string().optional(),
      signing_algorithm: z.string().optional(),
      idp_client_id: z.string().optional(),
      idp_id_token: z.string().optional(),
      idp_issuer: z.string().optional(),
    })
    .safeParse(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? 'null'));
  if (!context.success) return {};
  const { client_id, client_secret, private_key_pem, signing_algorithm, idp_client_id, idp_id_token, idp_issuer } = context.data;
  const store = async (name: string, value: string) => {
    if ((await steward(['credentials', 'set', name], { stdin: async () => value })) !== 0) throw new Error(`steward credentials set ${name} failed`);
    return `keychain:${name}`;
  };
  if (idp_id_token !== undefined && idp_issuer !== undefined && idp_client_id !== undefined) {
    // Enterprise-managed authorization (SEP-990): the person's ID token, as their organisation's
    // sign-in tooling hands it over, goes into the keychain; the IdP's token endpoint is discovered
    // from its issuer.
    return {
      oauth: {
        client_id,
        grant: 'enterprise_managed',
        ...(client_secret === undefined ? {} : { client_secret: await store('conformance-client-secret', client_secret) }),
        idp: { issuer: idp_issuer, client_id: idp_client_id, id_token: await store('conformance-id-token', idp_id_token) },
      },
    };
  }
  if (scenario.startsWith('auth/client-credentials')) {
    if (private_key_pem !== undefined) {
      return { oauth: { client_id, grant: 'client_credentials', private_key: await store('conformance-private-key', private_key_pem), ...(signing_algorithm ? { signing_algorithm } : {}) } };
    }
    return { oauth: { client_id, grant: 'client_credentials', client_secret: await store('conformance-client-secret', client_secret ?? '') } };
  }
  if (scenario !== 'auth/pre-registration') return {};
  return { oauth: { client_id, ...(client_secret === undefined ? {} : { client_secret: await store('conformance-client-secret', client_secret) }) } };
}

/** The server's tools, as the registry's Inspect lists them (the sign-in's tokens from the keychain). */
async function listTools(server: McpServerSpec, store: ReturnType<typeof conformanceStore>): Promise<Tool[]> {
  const target = resolveTarget(server, { vars: {}, cwd: process.cwd(), privacy: LOCAL_ONLY, oauthStore: store });
  const conn = await connectTarget(server.id, target, { startTimeoutMs: 20_000, callTimeoutMs: 20_000 });
  try {
    return await conn.listTools();
  } finally {
    await conn.close();
  }
}

/**
 * The calls a scenario names with their arguments (MCP_CONFORMANCE_CONTEXT `toolCalls`, e.g. the
 * header-mirroring scenarios' values), as a person would type them into the tool nodes.
 */
function scenarioCalls(): ToolCall[] | undefined {
  const context = z
    .object({ toolCalls: z.array(z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) })) })
    .safeParse(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? 'null'));
  // A null value is a field the person leaves empty: Steward checks arguments against the tool's schema.
  return context.success ? context.data.toolCalls.map((call) => ({ name: call.name, arguments: Object.fromEntries(Object.entries(call.arguments).filter(([, v]) => v !== null)) })) : undefined;
}

/**
 * `json-schema-2020-12-preservation` asks for one call: its echo tool given the other tool's input
 * schema exactly as Steward holds it (what the registry's Inspect shows a person), so the suite can
 * see which JSON Schema 2020-12 keywords survived.
 */
function schemaEcho(scenario: string, tools: readonly Tool[]): ToolCall[] | undefined {
  if (scenario !== 'json-schema-2020-12-preservation') return undefined;
  const focal = tools.find((tool) => tool.name !== 'json_schema_echo');
  return focal ? [{ name: 'json_schema_echo', arguments: { schema: focal.inputSchema } }] : undefined;
}

interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** One tool node per call, each after the one before (the server sees the calls in order); no model. */
function workflow(server: McpServerSpec, tools: readonly ToolCall[]): unknown {
  const nodes: unknown[] = tools.map((tool, i) => ({
    id: `call-${i + 1}`,
    kind: 'tool',
    server: SERVER,
    tool: tool.name,
    arguments: tool.arguments,
    inputs: i === 0 ? [] : [{ name: 'after', type: 'any' }],
  }));
  const edges = tools.slice(1).map((_, i) => ({ from: { node: `call-${i + 1}`, port: 'result' }, to: { node: `call-${i + 2}`, port: 'after' } }));
  if (tools.length === 0) nodes.push({ id: 'note', kind: 'template', format: 'text', inputs: [], template: 'The server lists no tools.' });
  nodes.push({ id: 'out', kind: 'output', fields: [{ name: 'last', type: 'any' }] });
  edges.push(tools.length === 0 ? { from: { node: 'note', port: 'output' }, to: { node: 'out', port: 'last' } } : { from: { node: `call-${tools.length}`, port: 'result' }, to: { node: 'out', port: 'last' } });
  return { format: 'steward/v1', kind: 'workflow', id: 'conformance', name: 'Conformance scenario', servers: [server], nodes, edges };
}

/** Arguments a tool's schema accepts: a number for each numeric property, text for text, etc. */
function sampleArguments(tool: Tool): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
    const type = (schema as { type?: unknown }).type;
    if (type === 'number' || type === 'integer') setOwn(args, name, 2);
    else if (type === 'boolean') setOwn(args, name, true);
    else if (type === 'string') setOwn(args, name, 'steward');
  }
  return args;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`[steward] ${errorMessage(error)}\n`);
    process.exit(1);
  },
);
