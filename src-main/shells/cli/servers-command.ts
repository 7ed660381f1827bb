import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { deprecatedSignIn, deprecatedUseText, type SignInClient } from '@shared/contracts/mcp-revision';
import { SERVER_TRUST_LEVELS, SERVER_TRUST_MEANING, ServerTrust, trustOf } from '@shared/contracts/server-trust';
import { createKeychainStore } from '../../credentials/keychain-store';
import { canSignIn, signInClientRegistered } from '../../mcp/oauth/registry-sign-in';
import { errorMessage } from '../../mcp/errors';
import { AuditLog } from '../../registry/audit-log';
import { setTrustPlan } from '../../registry/action-plans';
import { HostRegistry } from '../../registry/host-registry';
import { RequestError } from '../../registry/request-error';
import { SpecError } from '../../spec/spec-errors';
import { defaultDataDir } from '../../util/data-dir';
import { EXIT, type CliIo } from './cli-io';
import { typedPath } from './typed-path';
import { wrapUsage } from '@shared/util/wrap-usage';

export const SERVERS_USAGE = wrapUsage(`Usage:
  steward servers list [--json] [--data-dir DIR]
  steward servers trust ID trusted|untrusted [--data-dir DIR]

  The MCP servers registered in the data folder (the app's MCP registry): the shipped ones and
  yours, with their trust level. A remote server you signed in to with a client Steward registered
  dynamically says so (dynamic client registration is deprecated in MCP 2026-07-28).
  trust   whether values copied from a server's results are reviewed. untrusted (the default, also
          for every shipped server): ${SERVER_TRUST_MEANING.untrusted}
          trusted: ${SERVER_TRUST_MEANING.trusted}
          The change is recorded in the audit log (the app's Settings · Audit), with when and that
          you made it with this command.

Exit codes: 0 done · 2 bad input (an unknown server, a level other than trusted or untrusted)`);

/** `steward servers list|trust`: the data folder's registered servers and their trust level (issue 31). */
export async function serversCommand(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options: { json: { type: 'boolean', default: false }, 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } });
  } catch (error) {
    throw new SpecError(`${(error as Error).message}\n\n${SERVERS_USAGE}`);
  }
  const { values, positionals } = parsed;
  const [sub, id, level, extra] = positionals;
  if (values.help || sub === 'help') {
    io.stdout(`${SERVERS_USAGE}\n`);
    return EXIT.ok;
  }
  const dataDir = values['data-dir'] !== undefined ? typedPath(io, values['data-dir']) : defaultDataDir(io.env);
  if (sub === 'list' && id === undefined) {
    const servers = existsSync(dataDir) ? new HostRegistry(dataDir).servers() : new HostRegistry(join(dataDir, '.none')).servers();
    const clients = await signInClients(servers, io);
    if (values.json) {
      io.stdout(
        `${JSON.stringify(
          {
            servers: servers.map((s) => {
              const client = clients.get(s.id);
              const deprecated = deprecatedSignIn(client);
              return { id: s.id, label: s.label, source: s.source, trust: trustOf(s), ...(client === undefined ? {} : { sign_in_client: client }), ...(deprecated === undefined ? {} : { deprecated_features: [deprecated] }) };
            }),
          },
          null,
          2,
        )}\n`,
      );
    } else {
      for (const s of servers) {
        io.stdout(`${s.id.padEnd(16)} ${trustOf(s).padEnd(10)} ${s.label}${s.source === 'shipped' ? ' · ships with Steward' : ''}\n`);
        const deprecated = deprecatedSignIn(clients.get(s.id));
        if (deprecated !== undefined) io.stdout(`    This server ${deprecatedUseText(deprecated)}.\n`);
      }
    }
    return EXIT.ok;
  }
  if (sub !== 'trust' || id === undefined || level === undefined || extra !== undefined) throw new SpecError(SERVERS_USAGE);
  const trust = ServerTrust.safeParse(level);
  if (!trust.success) throw new SpecError(`the trust level is one of ${SERVER_TRUST_LEVELS.join(' or ')} (got "${level}")`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const registry = new HostRegistry(dataDir);
  let plan;
  try {
    plan = setTrustPlan(registry, id, trust.data);
  } catch (error) {
    if (error instanceof RequestError) throw new SpecError(`${error.message} (steward servers list shows them)`);
    throw error;
  }
  // Typing the command is the person's decision; it is recorded as theirs, with when.
  await plan.apply();
  new AuditLog(join(dataDir, 'audit.jsonl')).append({ action: plan.action, subject: plan.subject, detail: plan.detail, decided_by: 'command_line', outcome: 'approved' });
  io.stdout(`${id} is now ${trust.data}: ${SERVER_TRUST_MEANING[trust.data]}\nRecorded in the audit log (${plan.detail}).\n`);
  return EXIT.ok;
}

/**
 * How each remote server's sign-in client was obtained, read from the keychain (only when there is
 * a server that signs in). A keychain that cannot be read leaves them out, saying so on stderr: the
 * list itself does not need it.
 */
async function signInClients(servers: readonly RegisteredServer[], io: CliIo): Promise<Map<string, SignInClient>> {
  const found = new Map<string, SignInClient>();
  const remote = servers.filter((s) => canSignIn(s));
  if (remote.length === 0) return found;
  const store = (io.credentials ?? (() => createKeychainStore()))();
  try {
    for (const s of remote) {
      const client = await signInClientRegistered(s, store);
      if (client !== undefined) found.set(s.id, client);
    }
  } catch (error) {
    io.stderr(`steward servers: how the remote servers' sign-ins were made is not shown: the keychain could not be read (${errorMessage(error)})\n`);
  }
  return found;
}
