import { parseArgs } from 'node:util';
import type { CredentialStore } from '../../credentials/credential-store';
import { createKeychainStore } from '../../credentials/keychain-store';
import { SpecError } from '../../spec/spec-errors';
import { defaultDataDir } from '../../util/data-dir';
import { readAppWorkflowFile } from '../../workflow/load-workflow';
import { WorkflowStore } from '../../workflow/workflow-store';
import { validateSpecFile } from './validate-spec';
import { storedDocument, storedRunHosts } from './workflows-command';
import { wrapUsage } from '@shared/util/wrap-usage';
import { namesStoredWorkflow } from './names-stored-workflow';

export const VALIDATE_USAGE = wrapUsage(`Usage: steward validate FILE|NAME [--data-dir DIR] [--allow-host HOST]...

Checks an agent spec or a workflow as a run would before its first model call: schema, script,
variables, credentials in the keychain (by name: no value is read), the workflow's graph, its
servers started and their tools listed (no tool is called), tool nodes' arguments against their
tools' input schemas. FILE may be in the app's format (as the app or steward workflows export
writes it: servers and workspace registered in the data folder); NAME is a workflow stored in
the data folder (steward workflows list), as steward run NAME takes it.

  --data-dir DIR     the data folder whose registry and workflows are meant (default
                     STEWARD_DATA_DIR, else the platform's usual place)
  --allow-host HOST  a remote (url) MCP server on HOST (a name or name:port) may be reached, as
                     under a privacy policy that lists HOST; repeat for more hosts. Without it
                     only loopback servers are contacted, and a server elsewhere is reported as
                     not allowed. A server that signs in with OAuth needs
                     steward mcp sign-in FILE SERVER first.

Warnings (valid, exit 0, printed on stderr): an agent that runs at phase 4 with the review rule
"an argument carries a value from an untrusted tool result" (untrusted_provenance) turned off.

Exit codes: 0 valid · 2 a problem (printed on stderr)`);

/** A host as a privacy policy lists it: a name or an IP (IPv6 in brackets), with an optional port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}))(?::\d{1,5})?$/;

interface ValidateIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env?: NodeJS.ProcessEnv;
  credentials?: () => CredentialStore;
}

/** `steward validate FILE [--allow-host HOST]...`: 0 valid, 2 (EXIT.badInput) with the first problem on stderr. */
export async function validateCommand(args: string[], io: ValidateIo): Promise<number> {
  if (args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
    io.stdout(`${VALIDATE_USAGE}\n`);
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options: { 'allow-host': { type: 'string', multiple: true }, 'data-dir': { type: 'string' } } });
  } catch (err) {
    throw new SpecError(`${(err as Error).message}\n\n${VALIDATE_USAGE}`);
  }
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new SpecError(`validate needs exactly one spec FILE or stored workflow NAME\n\n${VALIDATE_USAGE}`);
  const allowedHosts = (values['allow-host'] ?? []).map((h) => h.trim().toLowerCase());
  // A URL here would never match a server's host: say so instead of "not allowed" later.
  const bad = allowedHosts.find((h) => !HOST.test(h));
  if (bad !== undefined) throw new SpecError(`--allow-host takes a host name or host:port (e.g. mcp.example.com), not "${bad}"`);
  const dataDir = values['data-dir'] ?? defaultDataDir(io.env ?? process.env);
  // As for steward run: a name that is no file is a workflow stored in the data folder (the app's).
  const stored = namesStoredWorkflow(file, file);
  // A stored workflow (or an app file) runs under the data folder's privacy policy: validate it so.
  const hosts = stored ? storedRunHosts(dataDir, allowedHosts) : allowedHosts;
  const source = stored
    ? { dataDir, load: () => storedDocument(file, dataDir), app: () => new WorkflowStore(dataDir).get(file)?.workflow }
    : { dataDir, app: () => readAppWorkflowFile(file) };
  const report = await validateSpecFile(file, io.credentials ?? (() => createKeychainStore()), { allowed_hosts: hosts }, source);
  for (const line of report.lines) io.stdout(`${line}\n`);
  for (const warning of report.warnings ?? []) io.stderr(`warning: ${warning}\n`);
  if (report.error) {
    io.stderr(`steward: ${report.error}\n`);
    return 2;
  }
  const warned = report.warnings?.length ?? 0;
  io.stdout(`valid: ${stored ? `stored workflow ${file}` : file}${warned > 0 ? ` (${warned} ${warned === 1 ? 'warning' : 'warnings'}, above)` : ''}\n`);
  return 0;
}
