import { randomBytes } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpServerSpec } from '@shared/contracts/spec';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import type { CredentialStore } from '../../credentials/credential-store';
import { createKeychainStore } from '../../credentials/keychain-store';
import { errorMessage } from '../errors';
import { connectTarget, resolveTarget } from '../server-target';
import type { ServerConnection } from '../server-connection';
import { connectSignedIn } from '../oauth/sign-in';
import type { ElicitationAsk, ElicitationReply } from '../client-capabilities';
import type { ElicitContent } from '@shared/policy/elicitation-form';
import { headlessBrowser } from './headless-browser';
import { setOwn } from '@shared/util/set-own';

/**
 * Steward's client as the official conformance suite (`@modelcontextprotocol/conformance`) drives
 * it: `steward-client <url>` with the scenario in MCP_CONFORMANCE_SCENARIO. The server is the
 * scenario's own URL in a Steward server spec (no relay), reached through Steward's connection code:
 * `resolveTarget` + `connectTarget` (privacy check, pinned fetch, the client's capabilities), and
 * for `auth/*` scenarios the app's sign-in (keychain-backed OAuth provider, loopback redirect), with
 * a headless visit standing in for the person at the browser (and at a form: acceptDefaults). It lists the tools and calls each one,
 * which is what every scenario asks of a client.
 *
 * Tokens go to the OS keychain under a service of their own (STEWARD_CONFORMANCE_KEYCHAIN_SERVICE),
 * emptied at the end; without a session bus, an in-memory store stands in and says so on stderr.
 */
async function main(): Promise<void> {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const url = process.argv[2];
  if (!url) throw new Error('usage: steward-client <server-url> (MCP_CONFORMANCE_SCENARIO names the scenario)');
  const store = conformanceStore();
  const spec = McpServerSpec.parse({ id: 'conformance', url, ...(await preRegistration(store)) });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let conn: ServerConnection | undefined;
  let close: () => Promise<void> = async () => undefined;
  try {
    if (scenario.startsWith('auth/')) {
      const session = await connectSignedIn(spec, { store, privacy: LOCAL_ONLY, open: headlessBrowser, timeoutMs: 20_000, onLog: log });
      conn = session.conn;
      close = () => session.close();
    } else {
      const target = resolveTarget(spec, { vars: {}, cwd: process.cwd(), privacy: LOCAL_ONLY });
      conn = await connectTarget(spec.id, target, { startTimeoutMs: 20_000, callTimeoutMs: 20_000, onLog: log, onElicit: acceptDefaults });
      close = () => (conn ? conn.close() : Promise.resolve());
    }
    const tools = await conn.listTools();
    log(`[steward] ${scenario}: ${tools.length} tool(s): ${tools.map((t) => t.name).join(', ')}`);
    for (const tool of tools) {
      const outcome = await conn.callTool(tool.name, sampleArguments(tool));
      log(`[steward] ${tool.name}: ${outcome.kind}`);
    }
  } finally {
    await close();
    await wipe(store);
  }
}

/**
 * A scenario that gives a client registered beforehand (MCP_CONFORMANCE_CONTEXT: client_id and
 * client_secret): the secret goes to the keychain and the spec refers to it, as a user's would.
 */
async function preRegistration(store: CredentialStore): Promise<{ oauth?: { client_id: string; client_secret?: string } }> {
  const context = z
    .object({ client_id: z.string(), client_secret: z.string().optional() })
    .safeParse(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? 'null'));
  if (process.env.MCP_CONFORMANCE_SCENARIO !== 'auth/pre-registration' || !context.success) return {};
  if (context.data.client_secret === undefined) return { oauth: { client_id: context.data.client_id } };
  await store.set(CLIENT_SECRET, context.data.client_secret);
  return { oauth: { client_id: context.data.client_id, client_secret: `keychain:${CLIENT_SECRET}` } };
}

const CLIENT_SECRET = 'conformance-client-secret';

/**
 * The person at the form (test double): a form is shown filled with the server's defaults and they
 * press Accept; a link they decline. Steward's own code turns the request into fields and back.
 */
async function acceptDefaults(ask: ElicitationAsk): Promise<ElicitationReply> {
  if (ask.mode !== 'form') return { action: 'decline' };
  const content: ElicitContent = {};
  for (const field of ask.fields) if (field.default !== undefined) setOwn(content, field.name, field.default);
  return { action: 'accept', content };
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

function conformanceStore(): CredentialStore {
  if (process.env.DBUS_SESSION_BUS_ADDRESS || process.platform !== 'linux') {
    return createKeychainStore({ service: process.env.STEWARD_CONFORMANCE_KEYCHAIN_SERVICE ?? `steward-conformance-${randomBytes(6).toString('hex')}` });
  }
  process.stderr.write('[steward] no D-Bus session: OAuth tokens are held in memory for this scenario, not in the OS keychain\n');
  const values = new Map<string, string>();
  return {
    list: () => Promise.resolve([...values.keys()]),
    set: (name, value) => Promise.resolve(void values.set(name, value)),
    get: (name) => Promise.resolve(values.get(name)),
    delete: (name) => Promise.resolve(values.delete(name)),
  };
}

async function wipe(store: CredentialStore): Promise<void> {
  for (const name of await store.list().catch(() => [])) if (name.startsWith('mcp-oauth.') || name === CLIENT_SECRET) await store.delete(name).catch(() => false);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`[steward] ${errorMessage(error)}\n`);
    process.exit(1);
  },
);
