import { afterEach, describe, expect, it } from 'vitest';
import { everythingBin } from '../../test-support/slow-tool-workflow';
import { serverLines, startToolHost, type McpToolHost } from './mcp-tool-host';

/**
 * The MCP protocol revision each server and Steward agreed on in the handshake: what the registry's
 * Inspect and `steward validate` show per server (issue 30). A real stdio reference server.
 */
const hosts: McpToolHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

describe('the negotiated protocol revision', () => {
  it('a stdio reference server reports the revision it agreed on, and validate words it per server', async () => {
    const host = await startToolHost([{ id: 'everything', command: process.execPath, args: [everythingBin] }], { vars: {}, overrides: {}, cwd: process.cwd(), startTimeoutMs: 60_000 });
    hosts.push(host);
    const [status] = host.status();
    expect(status?.protocol_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(['2025-06-18', '2025-11-25']).toContain(status?.protocol_version);
    const lines = serverLines(host.status());
    expect(lines[0]).toBe(`  server everything: ${status?.server_name ?? ''}, speaks MCP ${status?.protocol_version ?? ''}`);
    // It declares logging, deprecated in 2026-07-28: still supported, and said so under its line.
    expect(status?.deprecated_features).toContain('logging');
    expect(lines).toContain('    sends log messages (logging) — deprecated in MCP 2026-07-28, still supported for this server');
  }, 90_000);
});
