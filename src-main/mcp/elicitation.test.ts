import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCallDecision } from '@shared/contracts/decision';
import { elicitationContent, type ElicitEntry } from '@shared/policy/elicitation-form';
import type { ElicitationAsk, ElicitationReply } from './client-capabilities';
import { startToolHost, type McpToolHost } from './mcp-tool-host';
import { elicitAtTerminal } from '../shells/cli/elicit-at-terminal';

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

describe('elicitation at the terminal (real server-everything; typed lines are the test stand-in for the person)', () => {
  function typed(lines: string[]) {
    const shown: string[] = [];
    const line = async (question: string) => {
      shown.push(question);
      return lines.shift();
    };
    return { shown, io: { stderr: (t: string) => void shown.push(t), line } };
  }

  it('asks field by field, re-asks what does not fit, and sends the checked answers', async () => {
    // name, check, firstLine (default), email (bad, then fixed below), homepage, birthdate, integer, number, then the choices…
    const person = typed(['Ada', 'yes', '', 'not-an-email', '', '', '7', '', '', 'Piano, Drums', '', '', '', 'ada@example.com']);
    const host = await everything((ask) => elicitAtTerminal(ask, person.io));
    const content = await elicitOnce(host);
    expect(person.shown.join('\n')).toContain('MCP server "everything" asks you: Please provide inputs');
    expect(person.shown.join('\n')).toMatch(/String with email format: expected an email address/);
    expect(content).toContain('ada@example.com');
    expect(content).toContain('Drums');
  });

  it('"decline" at a prompt declines the form; leaving the terminal cancels it', async () => {
    const sessions = [typed(['decline']), typed([])];
    const host = await everything((ask) => elicitAtTerminal(ask, (sessions.shift() ?? typed([])).io));
    expect(await elicitOnce(host)).toMatch(/declin/i);
    expect(await elicitOnce(host)).toMatch(/cancel/i);
  });

  it('a link is opened only after the person says yes', async () => {
    const opened: string[] = [];
    const answers = ['no', 'yes'];
    const host = await everything((ask) => elicitAtTerminal(ask, { ...typed([answers.shift() ?? '']).io, openUrl: (url) => void opened.push(url) }));
    const tool = (await host.snapshot(0)).tools.find((t) => t.name === 'trigger-url-elicitation');
    if (!tool) throw new Error('server-everything did not register its URL elicitation tool');
    const ask = (key: string) => host.execute({ decision: { decision_type: 'tool_call', tool_name: tool.name, arguments: { url: 'https://example.com/verify', message: 'Verify your account' } }, tool, idempotency_key: key });
    expect((await ask('k-url-1')).content).toMatch(/declin/i);
    expect(opened).toEqual([]);
    await ask('k-url-2');
    expect(opened).toEqual(['https://example.com/verify']);
  });
});
