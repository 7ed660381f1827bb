import { parseArgs } from 'node:util';
import type { CredentialStore } from '../../credentials/credential-store';
import { createKeychainStore } from '../../credentials/keychain-store';
import { SpecError } from '../../spec/spec-errors';
import { validateSpecFile } from './validate-spec';

export const VALIDATE_USAGE = `Usage: steward validate FILE [--allow-host HOST]...

Checks an agent spec or a workflow as a run would before its first model call: schema, script,
variables, credentials in the keychain (by name: no value is read), the workflow's graph, its
servers started and their tools listed (no tool is called).

  --allow-host HOST  a remote (url) MCP server on HOST (a name or name:port) may be reached, as
                     under a privacy policy that lists HOST; repeat for more hosts. Without it
                     only loopback servers are contacted, and a server elsewhere is reported as
                     not allowed. A server that signs in with OAuth needs
                     steward mcp sign-in FILE SERVER first.

Exit codes: 0 valid · 2 a problem (printed on stderr)`;

/** A host as a privacy policy lists it: a name or an IP (IPv6 in brackets), with an optional port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}))(?::\d{1,5})?$/;

interface ValidateIo {
  stdout(text: string): void;
  stderr(text: string): void;
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
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options: { 'allow-host': { type: 'string', multiple: true } } });
  } catch (err) {
    throw new SpecError(`${(err as Error).message}\n\n${VALIDATE_USAGE}`);
  }
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new SpecError(`validate needs exactly one spec FILE\n\n${VALIDATE_USAGE}`);
  const allowedHosts = (values['allow-host'] ?? []).map((h) => h.trim().toLowerCase());
  // A URL here would never match a server's host: say so instead of "not allowed" later.
  const bad = allowedHosts.find((h) => !HOST.test(h));
  if (bad !== undefined) throw new SpecError(`--allow-host takes a host name or host:port (e.g. mcp.example.com), not "${bad}"`);
  const report = await validateSpecFile(file, io.credentials ?? (() => createKeychainStore()), { allowed_hosts: allowedHosts });
  for (const line of report.lines) io.stdout(`${line}\n`);
  if (report.error) {
    io.stderr(`steward: ${report.error}\n`);
    return 2;
  }
  io.stdout(`valid: ${file}\n`);
  return 0;
}
