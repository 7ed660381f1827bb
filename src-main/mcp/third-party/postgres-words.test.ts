import { describe, expect, it } from 'vitest';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { splitDetails } from '@shared/contracts/code-words';
import { POSTGRES_PACKAGE } from '@shared/policy/shipped-effects';
import { protocolRefusalText } from '../errors';

/** node-postgres' own texts, as server-postgres 0.6.2 passes them on (its errors become JSON-RPC -32603). */
const refusal = (text: string) => new McpError(ErrorCode.InternalError, text);

describe("the PostgreSQL server's password problems, in words", () => {
  it('no password: says none reached the server and where to set it; the server text stays in the details', () => {
    const text = protocolRefusalText(refusal('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'), POSTGRES_PACKAGE);
    const { words, details } = splitDetails(text);
    expect(words).toMatch(/^The PostgreSQL server got no password, and the database asks for one\. Store the password in the keychain and set the server's PGPASSWORD to keychain:NAME/);
    expect(words).not.toMatch(/SASL|SCRAM|MCP error/);
    expect(details).toBe('MCP error -32603: SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string');
  });

  it('a wrong password: names the role and what to check', () => {
    const { words, details } = splitDetails(protocolRefusalText(refusal('password authentication failed for user "reader"'), POSTGRES_PACKAGE));
    expect(words).toBe('The database refused the password for role "reader". Check the password stored for this server\'s PGPASSWORD in the keychain (and the role in its connection URL), then run again.');
    expect(details).toBe('MCP error -32603: password authentication failed for user "reader"');
  });

  it('another server with the same text, or another PostgreSQL error, keeps the server\'s own words (no SDK prefix)', () => {
    expect(protocolRefusalText(refusal('password authentication failed for user "reader"'), 'some-other-server')).toBe('password authentication failed for user "reader" (details: MCP error -32603)');
    expect(protocolRefusalText(refusal('relation "no_such_table" does not exist'), POSTGRES_PACKAGE)).toBe('relation "no_such_table" does not exist (details: MCP error -32603)');
    expect(protocolRefusalText(refusal(''), undefined)).toBe('the server refused without saying why (details: MCP error -32603)');
  });
});
