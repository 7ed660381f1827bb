import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema, type Root } from '@modelcontextprotocol/sdk/types.js';

export const CLIENT_INFO = { name: 'steward', version: '0.1.0' };

/** What Steward's client offers a server beyond calling its tools. */
export interface ClientCapabilityOptions {
  /** The run's workspace folders: what a server is told its roots are (roots/list). */
  roots?: readonly string[];
}

/**
 * The SDK client every connection (stdio or remote) uses, with the capabilities it declares and
 * the requests it answers. Roots: the run's workspace folders, fixed for the run (no listChanged).
 */
export function newMcpClient(options: ClientCapabilityOptions): Client {
  const client = new Client(CLIENT_INFO, { capabilities: { roots: { listChanged: false } } });
  const roots = workspaceRoots(options.roots ?? []);
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  return client;
}

/** Each folder as a file:// root named for its last path segment. */
export function workspaceRoots(folders: readonly string[]): Root[] {
  return folders.map((folder) => ({ uri: pathToFileURL(path.resolve(folder)).href, name: path.basename(path.resolve(folder)) || folder }));
}
