import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ElicitField } from '@shared/policy/elicitation-form';
import type { ElicitationAsk } from './client-capabilities';
import { answerWithDefaults } from './elicitation-defaults';
import { startToolHost, type McpToolHost } from './mcp-tool-host';
import { recordedElicitation, type ElicitationRecord } from './recorded-elicitation';

/**
 * SEP-1034: where nobody can be asked (`steward run` without a terminal, `--json`), a server's form
 * is answered with its schema's defaults, and the trace says the defaults answered, not a person.
 * The conformance suite's `elicitation-sep1034-client-defaults` runs it through the CLI
 * (conformance/); here, the rule itself and the real server-everything, whose form has required
 * fields without defaults.
 */
const require = createRequire(import.meta.url);
const everythingBin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const hosts: McpToolHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

const form = (fields: ElicitField[]): ElicitationAsk => ({ server: 's', mode: 'form', message: 'Fill this in', fields });

describe('a form nobody can be asked about: its defaults answer it', () => {
  it('every field with a default is accepted as shown, typed as the schema gives it; optional fields without one stay out', async () => {
    const reply = await answerWithDefaults(
      form([
        { name: 'name', title: 'Name', required: false, kind: 'text', default: 'John Doe' },
        { name: 'age', title: 'Age', required: true, kind: 'number', integer: true, default: 30 },
        { name: 'verified', title: 'Verified', required: false, kind: 'boolean', default: true },
        { name: 'status', title: 'Status', required: false, kind: 'choice', options: [{ value: 'active', label: 'active' }], default: 'active' },
        { name: 'note', title: 'Note', required: false, kind: 'text' },
      ]),
    );
    expect(reply).toEqual({ action: 'accept', content: { name: 'John Doe', age: 30, verified: true, status: 'active' }, by: 'defaults' });
  });

  it('a required field without a default, or a link to open, is cancelled: nobody made a choice', async () => {
    expect(await answerWithDefaults(form([{ name: 'email', title: 'Email', required: true, kind: 'text' }]))).toEqual({ action: 'cancel' });
    expect(await answerWithDefaults({ server: 's', mode: 'url', message: 'Verify', url: 'https://example.com', elicitation_id: 'e1' })).toEqual({ action: 'cancel' });
  });

  it('the trace records that the defaults answered (field names only); the server gets the content without Steward’s bookkeeping', async () => {
    const records: ElicitationRecord[] = [];
    const handler = recordedElicitation(answerWithDefaults, { mask: (t) => t, emit: (e) => void records.push(e) });
    const reply = await handler(form([{ name: 'age', title: 'Age', required: true, kind: 'number', integer: true, default: 30 }]));
    expect(reply.action).toBe('accept');
    expect(records).toEqual([{ type: 'mcp.elicitation', server: 's', mode: 'form', message: 'Fill this in', fields: ['age'], action: 'accept', answered_by: 'defaults' }]);
  });

  it('the real server-everything asks a form with required fields and no defaults: it hears "cancel", and the call completes', async () => {
    const host = await startToolHost([{ id: 'everything', command: process.execPath, args: [everythingBin] }], { vars: {}, overrides: {}, cwd: process.cwd(), startTimeoutMs: 60_000, onElicit: answerWithDefaults });
    hosts.push(host);
    const tool = (await host.snapshot(0)).tools.find((t) => t.name === 'trigger-elicitation-request');
    if (!tool) throw new Error('server-everything did not register its elicitation tool: Steward did not declare elicitation');
    const result = await host.execute({ decision: { decision_type: 'tool_call', tool_name: tool.name, arguments: {} }, tool, idempotency_key: 'k-defaults' });
    expect(result.content).toMatch(/cancel/i);
  }, 90_000);
});
