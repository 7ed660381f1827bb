import { parseArgs } from 'node:util';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { CredentialStore } from '../../credentials/credential-store';
import { loadDocumentFile } from '../../workflow/load-workflow';
import { errorMessage } from '../errors';
import { isSignedIn, signInRemoteServer, signOutRemoteServer } from './sign-in';
import { CLIENT_METADATA_URL_ENV, clientMetadataDocument } from './client-metadata';
import { wrapUsage } from '@shared/util/wrap-usage';

export const MCP_USAGE = wrapUsage(`Usage:
  steward mcp sign-in FILE SERVER [--allow-host HOST]...   sign in to a remote (url) server of a
                                     spec or workflow with OAuth: prints the sign-in link and opens
                                     it in your browser; the tokens go to the OS keychain only
  steward mcp sign-out FILE SERVER   forget that sign-in (its keychain entry)
  steward mcp status FILE SERVER     whether Steward holds a sign-in for it
  steward mcp client-metadata URL    prints Steward's client ID metadata document for URL (an
                                     https address you host it at); with
                                     ${CLIENT_METADATA_URL_ENV}=URL set, sign-ins use
                                     it as Steward's client_id where the authorization server
                                     supports such documents, and register dynamically elsewhere

A remote server on another host needs that host allowed (--allow-host, or the workspace settings),
and so does its authorization server.
Exit codes: 0 done · 1 not signed in / sign-in failed · 2 bad input`);

export interface McpCommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Opens a link in the system browser (best effort: the link is printed anyway). */
  openBrowser: (url: string) => void;
}

/** `steward mcp sign-in|sign-out|status FILE SERVER`. Returns the exit code; never throws. */
export async function mcpCommand(args: string[], io: McpCommandIo, store: CredentialStore): Promise<number> {
  const fail = (message: string, code = 2) => {
    io.stderr(`steward mcp: ${message}\n`);
    return code;
  };
  // Help is asked for as with every other command: it goes to stdout, and is not a refusal.
  if (args[0] === 'help' || args.includes('--help') || args.includes('-h')) {
    io.stdout(`${MCP_USAGE}\n`);
    return 0;
  }
  if (args.length === 0) return fail(`which subcommand?\n\n${MCP_USAGE}`);
  try {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'allow-host': { type: 'string', multiple: true } } });
    const [sub, file, serverId] = positionals;
    if (sub === 'client-metadata') {
      if (file === undefined || positionals.length > 2) return fail(MCP_USAGE);
      io.stdout(`${JSON.stringify(clientMetadataDocument(file), null, 2)}\n`);
      return 0;
    }
    if (sub === undefined || file === undefined || serverId === undefined || positionals.length > 3) return fail(MCP_USAGE);
    const server = findServer(file, serverId);
    if (typeof server === 'string') return fail(server);
    switch (sub) {
      case 'sign-in': {
        const outcome = await signInRemoteServer(server, {
          store,
          privacy: { allowed_hosts: values['allow-host'] ?? [] },
          open: async (url) => {
            // The link carries no secret (PKCE keeps the verifier here); the person may open it anywhere.
            io.stdout(`Open this link to sign in to "${server.id}" (waiting for the browser to come back):\n  ${url.href}\n`);
            io.openBrowser(url.href);
          },
        });
        if (!outcome.ok) return fail(outcome.message, 1);
        const revision = outcome.protocol_version === undefined ? '' : `, speaks MCP ${outcome.protocol_version}`;
        const what = `${outcome.server_name ?? 'unnamed server'}, ${outcome.tools} tool(s)${revision}`;
        // A machine-to-machine client signs nobody in: reaching the server checked its credentials.
        if (server.oauth?.grant === 'client_credentials') io.stdout(`reached "${server.id}" (${what}) with its machine-to-machine client ${server.oauth.client_id}; nobody needs to sign in: each run gets its own token\n`);
        else if (server.oauth?.grant === 'enterprise_managed') io.stdout(`reached "${server.id}" (${what}) with enterprise-managed access: ${server.oauth.idp?.issuer ?? 'your identity provider'} exchanged your ID token, and each run gets its own token from it\n`);
        else io.stdout(`signed in to "${server.id}" (${what}); the tokens are in the OS keychain\n`);
        return 0;
      }
      case 'sign-out':
        io.stdout((await signOutRemoteServer(server, store)) ? `signed out of "${server.id}"\n` : `no sign-in was stored for "${server.id}"\n`);
        return 0;
      case 'status': {
        const signedIn = await isSignedIn(server, store);
        io.stdout(signedIn ? `signed in to "${server.id}"\n` : `not signed in to "${server.id}"\n`);
        return signedIn ? 0 : 1;
      }
      default:
        return fail(MCP_USAGE);
    }
  } catch (error) {
    return fail(errorMessage(error));
  }
}

function findServer(file: string, serverId: string): McpServerSpec | string {
  const document = loadDocumentFile(file);
  const servers = document.kind === 'workflow' ? document.workflow.graph.servers : document.spec.spec.servers;
  const server = servers.find((s) => s.id === serverId);
  if (!server) return `${file} has no server "${serverId}" (servers: ${servers.map((s) => s.id).join(', ') || 'none'})`;
  if (server.url === undefined) return `server "${serverId}" is not a remote (url) server: there is nothing to sign in to`;
  return server;
}
