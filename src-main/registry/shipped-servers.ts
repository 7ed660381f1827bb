import type { RegisteredServer } from '@shared/contracts/host-registry';
import { EVERYTHING_PACKAGE, FILESYSTEM_PACKAGE, MEMORY_PACKAGE } from '@shared/policy/shipped-effects';
import { INSTALLED_SERVERS } from '@shared/policy/installed-servers';

/**
 * The MCP servers Steward ships (package.json), registered from the start so the demo and a fresh
 * install work without asking. Their arguments are fixed here: the filesystem server only ever
 * gets the run's workspace.
 */
export const SHIPPED_SERVERS: readonly RegisteredServer[] = [
  { id: 'filesystem', label: 'Filesystem (shipped)', package: FILESYSTEM_PACKAGE, args: ['${workspace}'], env: {}, source: 'shipped' },
  { id: 'memory', label: 'Memory (shipped)', package: MEMORY_PACKAGE, args: [], env: {}, source: 'shipped' },
  { id: 'everything', label: 'Everything test server (shipped)', package: EVERYTHING_PACKAGE, args: [], env: {}, source: 'shipped' },
];

/**
 * Packages a person may register by name: the shipped servers', and servers installed with Steward
 * that need the person's own arguments (a database URL, a folder), so none is registered for them.
 */
export const SHIPPED_PACKAGES: ReadonlySet<string> = new Set([...SHIPPED_SERVERS.map((s) => s.package ?? ''), ...INSTALLED_SERVERS.map((s) => s.package)]);
