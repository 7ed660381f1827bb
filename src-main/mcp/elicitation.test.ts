import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCallDecision } from '@shared/contracts/decision';
import { elicitationContent, type ElicitEntry } from '@shared/policy/elicitation-form';
import type { ElicitationAsk, ElicitationReply } from './client-capabilities';
import { startToolHost, type McpToolHost } from './mcp-tool-host';

const require = createRequire(import.meta.url);
const everythingBin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const hosts: McpToolHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

async function everything(onElicit?: (ask: ElicitationAsk) => Promise<ElicitationReply>): Promise<McpToolHost> {
  const host = await startToolHost([{ id: 'everything', command: process.execPath, args: [everythingBin] }], {
    vars: {},
    overrides: {},
    cwd: process.cwd(),
    startTimeoutMs: 60_000,
    ...(onElicit ? { onElicit } : {}),
  });
  hosts.push(host);
  return host;
}

const call: ToolCallDecision = { decision_type: 'tool_call', tool_name: 'trigger-elicitation-request', arguments: {} };

async function elicitOnce(host: McpToolHost): Promise<string> {
  const tool = (await host.snapshot(0)).tools.find((t) => t.name === 'trigger-elicitation-request');
  if (!tool) throw new Error('server-everything did not register its elicitation tool');
  return (await host.execute({ decision: call, tool, idempotency_key: `k-${Math.random()}` })).content;
}

describe('elicitation (real server-everything; the person is a test stand-in answering the form)', () => {
  it('a server is not told Steward can elicit unless a person can answer: its elicitation tool is not even registered', async () => {
    const host = await everything();
    expect((await host.snapshot(0)).tools.map((t) => t.name)).not.toContain('trigger-elicitation-request');
  });

  it("the form comes as typed fields; the person's entries, checked, go back as the content", async () => {
    const asks: ElicitationAsk[] = [];
    const host = await everything(async (ask) => {
      asks.push(ask);
      if (ask.mode !== 'form') return { action: 'decline' };
      const entries: Record<string, ElicitEntry> = { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: '7', untitledMultipleSelectEnum: ['Piano'] };
      for (const f of ask.fields) if (!(f.name in entries) && f.kind === 'choice') entries[f.name] = f.options[0]?.value ?? '';
      const checked = elicitationContent(ask.fields, entries);
      if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
      return { action: 'accept', content: checked.content };
    });
    const content = await elicitOnce(host);
    expect(asks[0]).toMatchObject({ server: 'everything', mode: 'form' });
    const fields = asks[0]?.mode === 'form' ? asks[0].fields : [];
    expect(fields.find((f) => f.name === 'email')).toMatchObject({ kind: 'text', format: 'email' });
    expect(fields.find((f) => f.name === 'integer')).toMatchObject({ kind: 'number', integer: true, minimum: 1, maximum: 100 });
    expect(fields.find((f) => f.name === 'untitledMultipleSelectEnum')).toMatchObject({ kind: 'choices', max_items: 3 });
    expect(content).toContain('Ada Lovelace');
    expect(content).toContain('ada@example.com');
  });

  it('declining and cancelling reach the server as such', async () => {
    let reply: ElicitationReply = { action: 'decline' };
    const host = await everything(async () => reply);
    expect(await elicitOnce(host)).toMatch(/declin/i);
    reply = { action: 'cancel' };
    expect(await elicitOnce(host)).toMatch(/cancel/i);
  });
});
