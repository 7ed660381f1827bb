import { POSTGRES_PACKAGE } from '@shared/policy/shipped-effects';

/**
 * The PostgreSQL MCP server (server-postgres) passes node-postgres' own errors on as its answer:
 * "SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string" when no password reached it,
 * "password authentication failed for user …" when the one it got is wrong. A person reads what
 * happened and what to do instead (the server's own text stays in the message's details).
 */
export function postgresWords(packageName: string | undefined, said: string): string | undefined {
  if (packageName !== POSTGRES_PACKAGE) return undefined;
  if (/client password must be a string|no password (was )?(supplied|provided)/i.test(said)) {
    return 'The PostgreSQL server got no password, and the database asks for one. Store the password in the keychain and set the server\'s PGPASSWORD to keychain:NAME (Servers → the server → Environment), then run again.';
  }
  const refused = /password authentication failed for user "([^"]*)"/i.exec(said);
  if (refused) {
    const role = refused[1] ?? '';
    return `The database refused the password for role ${role !== '' ? `"${role}"` : 'of the connection URL'}. Check the password stored for this server's PGPASSWORD in the keychain (and the role in its connection URL), then run again.`;
  }
  if (/ECONNREFUSED/.test(said)) return 'Nothing answered at the PostgreSQL address in the server\'s connection URL. Check that the database is running and the host and port are right.';
  return undefined;
}
