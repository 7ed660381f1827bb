import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, ListRootsRequestSchema, type ElicitRequest, type ElicitResult, type Root } from '@modelcontextprotocol/sdk/types.js';
import { elicitationFields, type ElicitContent, type ElicitField } from '@shared/policy/elicitation-form';

export const CLIENT_INFO = { name: 'steward', version: '0.1.0' };

/** What Steward's client offers a server beyond calling its tools. */
export interface ClientCapabilityOptions {
  /** The run's workspace folders: what a server is told its roots are (roots/list). */
  roots?: readonly string[];
  /**
   * A person answers a server's elicitation request (never a model). Without it the client does
   * not declare elicitation, so a server does not ask.
   */
  onElicit?: (ask: ElicitationAsk) => Promise<ElicitationReply>;
}

/** A server asks the person: to fill in a form, or to open a link (only once they agree). */
export type ElicitationAsk =
  | { server: string; mode: 'form'; message: string; fields: ElicitField[] }
  | { server: string; mode: 'url'; message: string; url: string; elicitation_id: string };

/** The person's answer: the form's content (or, for a link, that they opened it), no, or not now. */
export type ElicitationReply = { action: 'accept'; content?: ElicitContent } | { action: 'decline' } | { action: 'cancel' };

/**
 * The SDK client every connection (stdio or remote) uses, with the capabilities it declares and
 * the requests it answers. Roots: the run's workspace folders, fixed for the run (no listChanged).
 */
export function newMcpClient(options: ClientCapabilityOptions): Client {
  const { onElicit } = options;
  const client = new Client(CLIENT_INFO, { capabilities: { roots: { listChanged: false }, ...(onElicit ? { elicitation: { form: {}, url: {} } } : {}) } });
  const roots = workspaceRoots(options.roots ?? []);
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  if (onElicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request, onElicit));
  return client;
}

/** A form the person cannot be shown (a field of another kind) is declined without asking. The host fills in `server`. */
async function elicit(request: ElicitRequest, onElicit: (ask: ElicitationAsk) => Promise<ElicitationReply>): Promise<ElicitResult> {
  const params = request.params;
  if (params.mode === 'url') {
    return onElicit({ server: '', mode: 'url', message: params.message, url: params.url, elicitation_id: params.elicitationId });
  }
  const form = elicitationFields(params.requestedSchema);
  if (!form.ok) return { action: 'decline' };
  return onElicit({ server: '', mode: 'form', message: params.message, fields: form.fields });
}

/** Each folder as a file:// root named for its last path segment. */
export function workspaceRoots(folders: readonly string[]): Root[] {
  return folders.map((folder) => ({ uri: pathToFileURL(path.resolve(folder)).href, name: path.basename(path.resolve(folder)) || folder }));
}
