import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCallDecision } from '@shared/contracts/decision';
import { startToolHost, type McpToolHost } from './mcp-tool-host';
import { inspectServer } from './inspect-server';

const require = createRequire(import.meta.url);
const everythingBin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const hosts: McpToolHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

const call = (name: string, args: Record<string, unknown>): ToolCallDecision => ({ decision_type: 'tool_call', tool_name: name, arguments: args });

describe('resources and prompts (real server-everything)', () => {
  it("the registry's inspection lists a server's resources and prompts next to its tools", async () => {
    const inspected = await inspectServer({ id: 'everything', label: 'Everything', command: process.execPath, args: [everythingBin], env: {}, source: 'user' }, { cwd: process.cwd() });
    expect(inspected.tools.length).toBeGreaterThan(3);
    expect(inspected.resources.length).toBeGreaterThan(0);
    expect(inspected.resources[0]).toMatchObject({ uri: expect.any(String) as unknown, name: expect.any(String) as unknown });
    expect(inspected.prompts.map((p) => p.name).length).toBeGreaterThan(0);
    expect(inspected.prompts.some((p) => p.arguments.some((a) => a.required))).toBe(true);
  });

  it('offer_resources offers one read tool (a read) that lists the resources and reads one by URI; an unknown URI is an error result', async () => {
    const host = await startToolHost([{ id: 'everything', command: process.execPath, args: [everythingBin], offer_resources: true }], {
      vars: {},
      overrides: {},
      cwd: process.cwd(),
      startTimeoutMs: 60_000,
    });
    hosts.push(host);
    const [catalog] = await host.catalog();
    const first = catalog?.resources.find((r) => r.mimeType === 'text/plain' || r.mimeType === undefined) ?? catalog?.resources[0];
    if (!first) throw new Error('server-everything listed no resources');
    const tool = (await host.snapshot(0)).tools.find((t) => t.name === 'read_resource_everything');
    expect(tool).toMatchObject({ server: 'everything', effect: { effect: 'read' }, effect_source: 'shipped' });
    expect(tool?.description).toContain(first.uri);
    if (!tool) return;
    const read = await host.execute({ decision: call(tool.name, { uri: first.uri }), tool, idempotency_key: 'k-read' });
    expect(read).toMatchObject({ ok: true, is_error: false });
    expect(read.content).toContain(`[resource ${first.uri}`);
    const unknown = await host.execute({ decision: call(tool.name, { uri: 'demo://no/such/thing' }), tool, idempotency_key: 'k-unknown' });
    expect(unknown.is_error).toBe(true);
  });
});
