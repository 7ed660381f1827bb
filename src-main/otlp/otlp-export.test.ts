import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExportResultCode } from '@opentelemetry/core';
import type { RunEvent } from '@shared/contracts/events';
import { AgentSpec } from '@shared/contracts/spec';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { runAgent } from '../engine/run-agent';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runCli } from '../shells/cli/cli';
import { collector } from '../../test-support/otlp-collector';
import { EXAMPLES, tempNotesWorkspace } from '../../test-support/workspace';
import { toReadableSpans } from './encode-otlp';
import { exportEvents } from './export-otlp';
import { otlpTarget, sendOtlp } from './send-otlp';
import { runSpans } from './trace-to-spans';

/**
 * OTLP/JSON as the OpenTelemetry protocol specifies it (opentelemetry-proto's JSON mapping), written
 * here from the spec rather than from Steward's code: ids are hex, 64-bit numbers are strings.
 */
const AnyValue = z.object({
  stringValue: z.string().optional(),
  boolValue: z.boolean().optional(),
  intValue: z.union([z.string().regex(/^-?\d+$/), z.number().int()]).optional(),
  doubleValue: z.number().optional(),
  arrayValue: z.object({ values: z.array(z.unknown()) }).optional(),
});
const KeyValue = z.object({ key: z.string(), value: AnyValue });
const OtlpSpan = z.object({
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
  parentSpanId: z.string().regex(/^[0-9a-f]{16}$/).optional(),
  name: z.string(),
  kind: z.number().int(),
  startTimeUnixNano: z.string().regex(/^\d+$/),
  endTimeUnixNano: z.string().regex(/^\d+$/),
  attributes: z.array(KeyValue),
  events: z.array(z.object({ name: z.string(), timeUnixNano: z.string().regex(/^\d+$/), attributes: z.array(KeyValue) })),
  status: z.object({ code: z.number().int().optional(), message: z.string().optional() }),
});
const ExportTraceServiceRequest = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: z.array(KeyValue) }),
      scopeSpans: z.array(z.object({ scope: z.object({ name: z.string() }), spans: z.array(OtlpSpan) })),
    }),
  ),
});
type OtlpSpan = z.infer<typeof OtlpSpan>;

const decode = (body: Uint8Array | string) => ExportTraceServiceRequest.parse(JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body)));
const spansOf = (request: z.infer<typeof ExportTraceServiceRequest>) => request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
const attr = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.boolValue ?? (value?.intValue !== undefined ? Number(value.intValue) : value?.doubleValue);
};

/**
 * A real supervised run (scripted models, the real filesystem MCP server): the student reads, then
 * wants to overwrite the ideas; the teacher accepts the read and replaces the overwrite with a new file.
 */
async function recordRun(dir: string, workspace: string): Promise<RunEvent[]> {
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'otlp-probe',
    name: 'Notes keeper',
    instructions: 'Keep notes in ${workspace}.',
    task: 'Summarise the ideas.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file'] }],
    supervision: { phase: 2 },
  });
  const read = { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(workspace, 'ideas.md') } };
  const overwrite = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(workspace, 'ideas.md'), content: 'gone' } };
  const summary = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(workspace, 'summary.md'), content: 'a summary' } };
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec,
    specDir: dir,
    workspace,
    script: {
      latency_ms: 0,
      student: [{ json: read }, { json: overwrite }, { json: { decision_type: 'complete', output: 'summarised' } }],
      teacher: [
        { json: { verdict: 'accept', reason_codes: [], explanation: 'Reading is fine.' } },
        { json: { verdict: 'replace', reason_codes: ['other'], explanation: 'Keep the ideas; write a summary.', replacement: summary } },
        { json: { verdict: 'accept', reason_codes: [], explanation: 'Done.' } },
      ],
    },
    ledger: createMemoryLedger(),
    onEvent: (e) => events.push(e),
  });
  if (result.status !== 'completed') throw new Error(`the probe run ended ${result.status}: ${result.message ?? ''}`);
  return events;
}

describe('a run exported as OpenTelemetry OTLP/JSON', () => {
  let ws: ReturnType<typeof tempNotesWorkspace>;
  let events: RunEvent[];
  let trace: string;
  beforeAll(async () => {
    ws = tempNotesWorkspace();
    events = await recordRun(ws.dir, ws.workspace);
    trace = join(ws.dir, 'run.jsonl');
    writeFileSync(trace, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }, 60_000);
  afterAll(() => ws.cleanup());

  it('is one trace of GenAI spans: invoke_agent → chat (student), apply_guardrail → chat (teacher), execute_tool; ids hex of the right length', () => {
    const spans = spansOf(decode(exportEvents(events).body));
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    expect(byId.size).toBe(spans.length);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);

    const roots = spans.filter((s) => s.parentSpanId === undefined);
    expect(roots.map((s) => s.name)).toEqual(['invoke_agent Notes keeper']);
    const [root] = roots as [OtlpSpan];
    expect(attr(root, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(attr(root, 'gen_ai.agent.name')).toBe('Notes keeper');
    expect(attr(root, 'gen_ai.agent.id')).toBe('otlp-probe');
    expect(attr(root, 'steward.run.status')).toBe('completed');
    expect(root.status.code).toBe(1); // STATUS_CODE_OK

    const parentOf = (s: OtlpSpan) => byId.get(s.parentSpanId ?? '');
    const studentChats = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'chat' && attr(s, 'steward.role') === 'student');
    expect(studentChats).toHaveLength(3);
    for (const chat of studentChats) {
      expect(parentOf(chat)).toBe(root);
      expect(chat.name).toBe('chat replay');
      expect(chat.kind).toBe(3); // SPAN_KIND_CLIENT
      expect(attr(chat, 'gen_ai.provider.name')).toBe('steward.replay');
      expect(attr(chat, 'gen_ai.request.model')).toBe('replay');
    }

    const reviews = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'apply_guardrail');
    expect(reviews).toHaveLength(3);
    expect(reviews.map((r) => attr(r, 'steward.verdict'))).toEqual(['accept', 'replace', 'accept']);
    expect(reviews.map((r) => attr(r, 'steward.decision.source'))).toEqual(['student', 'teacher', 'student']);
    for (const review of reviews) {
      expect(parentOf(review)).toBe(root);
      const teacherChats = spans.filter((s) => s.parentSpanId === review.spanId);
      expect(teacherChats.map((s) => [attr(s, 'gen_ai.operation.name'), attr(s, 'steward.role')])).toEqual([['chat', 'teacher']]);
    }

    const tools = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'execute_tool');
    expect(tools.map((t) => [t.name, attr(t, 'gen_ai.tool.name')])).toEqual([
      ['execute_tool read_text_file', 'read_text_file'],
      ['execute_tool write_file', 'write_file'],
    ]);
    // The executed write is the teacher's replacement, never the student's overwrite.
    expect(String(attr(tools[1] as OtlpSpan, 'gen_ai.tool.call.arguments'))).toContain('summary.md');
    for (const tool of tools) expect(parentOf(tool)).toBe(root);

    // Every child lies within its parent's time.
    for (const span of spans) {
      expect(BigInt(span.startTimeUnixNano) <= BigInt(span.endTimeUnixNano)).toBe(true);
      const parent = parentOf(span);
      if (parent) expect(BigInt(parent.startTimeUnixNano) <= BigInt(span.startTimeUnixNano) && BigInt(span.endTimeUnixNano) <= BigInt(parent.endTimeUnixNano)).toBe(true);
    }
  });

  it('a chat span lasts its recorded latency and carries the tokens the server counted; an older reply without them spans from the previous step and claims no usage', () => {
    const firstProposal = events.findIndex((e) => e.type === 'candidate.proposed');
    const proposal = events[firstProposal];
    if (proposal?.type !== 'candidate.proposed') throw new Error('no proposal');
    const answeredAt = Date.parse(proposal.ts);
    const chatOf = (list: RunEvent[]) => spansOf(decode(exportEvents(list).body)).find((s) => attr(s, 'gen_ai.operation.name') === 'chat') as OtlpSpan;
    const ms = (nanos: string) => Number(BigInt(nanos) / 1_000_000n);
    const withReply = (reply: object) => events.map((e, i) => (i === firstProposal ? { ...proposal, reply: { ...proposal.reply, ...reply } } : e));

    const measured = chatOf(withReply({ latency_ms: 3, usage: { input_tokens: 900, output_tokens: 12 } }));
    expect([ms(measured.startTimeUnixNano), ms(measured.endTimeUnixNano)]).toEqual([answeredAt - 3, answeredAt]);
    expect([attr(measured, 'gen_ai.usage.input_tokens'), attr(measured, 'gen_ai.usage.output_tokens')]).toEqual([900, 12]);

    const onlyOutput = chatOf(withReply({ latency_ms: 0, usage: { output_tokens: 5 } }));
    expect([attr(onlyOutput, 'gen_ai.usage.input_tokens'), attr(onlyOutput, 'gen_ai.usage.output_tokens')]).toEqual([undefined, 5]);

    const { latency_ms: _latency, usage: _usage, ...older } = proposal.reply;
    const old = chatOf(events.map((e, i) => (i === firstProposal ? { ...proposal, reply: older } : e)));
    const roundStarted = events.find((e) => e.type === 'round.started');
    expect(ms(old.startTimeUnixNano)).toBe(Date.parse(roundStarted?.ts ?? ''));
    expect(old.attributes.some((a) => a.key.startsWith('gen_ai.usage.'))).toBe(false);
  });

  it('exports the same ids every time, so a collector receiving a run twice keeps one copy', () => {
    const first = spansOf(decode(exportEvents(events).body)).map((s) => s.spanId);
    const second = spansOf(decode(exportEvents([...events].reverse()).body)).map((s) => s.spanId);
    expect(second).toEqual(first);
  });

  it('is byte-for-byte what the official OTLP/HTTP exporter sends for the same spans', async () => {
    const official = await collector();
    try {
      const exporter = new OTLPTraceExporter({ url: `${official.url}/v1/traces` });
      const result = await new Promise<{ code: ExportResultCode }>((resolve) => exporter.export(toReadableSpans(runSpans(events)), resolve));
      expect(result.code).toBe(ExportResultCode.SUCCESS);
      await exporter.shutdown();
      const sent = await sendOtlp(exportEvents(events).body, official.url, LOCAL_ONLY);
      expect(sent).toMatchObject({ ok: true, rejectedSpans: 0 });
      const [fromOfficial, fromSteward] = official.received;
      expect(fromSteward?.path).toBe('/v1/traces');
      expect(fromSteward?.contentType).toBe('application/json');
      expect(fromSteward?.body).toBe(fromOfficial?.body);
    } finally {
      official.server.close();
    }
  });

  it('steward trace otlp writes the file and sends it to a loopback collector', async () => {
    const local = await collector();
    try {
      const out = join(ws.dir, 'run.otlp.json');
      let stderr = '';
      const code = await runCli(['trace', 'otlp', trace, '-o', out, '--endpoint', local.url, '--data-dir', join(ws.dir, 'data')], {
        stdout: () => undefined,
        stderr: (t) => (stderr += t),
        env: {},
      });
      expect(code, stderr).toBe(0);
      expect(stderr).toMatch(/sent \d+ spans from 1 run to http:\/\/127\.0\.0\.1:\d+\/v1\/traces/);
      const written = readFileSync(out, 'utf8');
      expect(local.received.map((r) => r.body)).toEqual([written]);
      expect(spansOf(decode(written)).length).toBeGreaterThan(5);
    } finally {
      local.server.close();
    }
  });

  it('a collector that answers an error or a redirect is reported (exit 1) and the redirect is not followed', async () => {
    const hits: string[] = [];
    const failing = createServer((req, res) => {
      hits.push(req.url ?? '');
      req.resume();
      if (req.url === '/v1/traces') res.writeHead(503).end('busy');
      else res.writeHead(307, { location: 'http://127.0.0.1:1/v1/traces' }).end();
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
      let stderr = '';
      const io = { stdout: () => undefined, stderr: (t: string) => (stderr += t), env: {} };
      expect(await runCli(['trace', 'otlp', trace, '--endpoint', base], io)).toBe(1);
      expect(stderr).toContain(`${base}/v1/traces answered HTTP 503`);
      stderr = '';
      expect(await runCli(['trace', 'otlp', trace, '--endpoint', `${base}/moved`], io)).toBe(1);
      expect(stderr).toContain(`${base}/moved answered HTTP 307 (a redirect, not followed)`);
      expect(hits).toEqual(['/v1/traces', '/moved']);
    } finally {
      failing.close();
    }
  });

  it('a torn last line is skipped and named; a file that is no trace is refused with its first problem', async () => {
    const torn = join(ws.dir, 'torn.jsonl');
    writeFileSync(torn, `${readFileSync(trace, 'utf8')}{"type":"run.fin`);
    let stderr = '';
    let stdout = '';
    const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t), env: {} };
    expect(await runCli(['trace', 'otlp', torn], io)).toBe(0);
    expect(stderr).toContain(`skipped ${torn}:${events.length + 1}: not JSON`);
    expect(spansOf(decode(stdout)).length).toBe(spansOf(decode(exportEvents(events).body)).length);

    const notTrace = join(ws.dir, 'notes.jsonl');
    writeFileSync(notTrace, '{"hello":"world"}\n');
    stderr = '';
    expect(await runCli(['trace', 'otlp', notTrace], io)).toBe(2);
    expect(stderr).toContain(`${notTrace} is not a Steward trace (line 1: not a Steward event`);
    stderr = '';
    expect(await runCli(['trace', 'otlp', join(ws.dir, 'missing.jsonl')], io)).toBe(2);
    expect(stderr).toContain('no such file');
  });

  it('an endpoint on a host the privacy policy does not list is refused before anything is read or sent', async () => {
    const out = join(ws.dir, 'refused.json');
    let stderr = '';
    const code = await runCli(['trace', 'otlp', trace, '-o', out, '--endpoint', 'https://collector.example.com:4318', '--data-dir', join(ws.dir, 'data')], {
      stdout: () => undefined,
      stderr: (t) => (stderr += t),
      env: {},
    });
    expect(code).toBe(2);
    expect(stderr).toContain('collector.example.com:4318, which the privacy policy does not allow');
    expect(stderr).toContain('--allow-host collector.example.com:4318');
    expect(existsSync(out)).toBe(false);

    const calls: string[] = [];
    const counting: typeof fetch = (input) => (calls.push(String(input)), Promise.reject(new Error('must not be called')));
    const refused = await sendOtlp(exportEvents(events).body, 'https://user:pw@collector.example.com/', { allowed_hosts: ['collector.example.com'] }, counting);
    expect(refused.ok).toBe(false);
    // The same host listed by the policy is allowed; a bare address gets the standard path.
    expect(otlpTarget('https://collector.example.com:4318', { allowed_hosts: ['collector.example.com'] })).toMatchObject({ ok: true, href: 'https://collector.example.com:4318/v1/traces' });
    expect(otlpTarget('https://collector.example.com/otlp/v1/traces', { allowed_hosts: ['collector.example.com'] })).toMatchObject({ ok: true, href: 'https://collector.example.com/otlp/v1/traces' });
    expect(JSON.stringify(refused)).not.toContain('pw');
    expect(calls).toEqual([]);
  });
});

describe('a workflow run exported as OTLP/JSON', () => {
  it('nests by layer: invoke_workflow → node (under its iterate) → invoke_agent → chat; a tool node holds its execute_tool and its review', async () => {
    const ws = tempNotesWorkspace();
    try {
      cpSync(join(EXAMPLES, 'folder-triage.workflow.json'), join(ws.dir, 'folder-triage.workflow.json'));
      cpSync(join(EXAMPLES, 'triage-sandbox'), join(ws.dir, 'triage-sandbox'), { recursive: true });
      const trace = join(ws.dir, 'trace.jsonl');
      const out = join(ws.dir, 'trace.otlp.json');
      const io = { stdout: () => undefined, stderr: () => undefined, env: {} };
      const data = ['--data-dir', join(ws.dir, 'data')];
      expect(await runCli(['run', join(ws.dir, 'folder-triage.workflow.json'), '--trace', trace, ...data], io)).toBe(0);
      expect(await runCli(['trace', 'otlp', trace, '-o', out, ...data], io)).toBe(0);

      const spans = spansOf(decode(readFileSync(out, 'utf8')));
      const named = (name: string) => {
        const found = spans.filter((s) => s.name === name);
        expect(found, name).toHaveLength(1);
        return found[0] as OtlpSpan;
      };
      const root = named('invoke_workflow Folder triage');
      expect(root.parentSpanId).toBeUndefined();
      expect(attr(root, 'gen_ai.operation.name')).toBe('invoke_workflow');
      expect(attr(root, 'steward.run.status')).toBe('completed');

      const each = named('node each-file');
      expect(each.parentSpanId).toBe(root.spanId);
      const read = named('node read[each-file=0]');
      expect(read.parentSpanId).toBe(each.spanId);
      expect(attr(read, 'steward.node.kind')).toBe('tool');
      // A tool node's call is made by the graph: an execute_tool span, no chat span.
      expect(spans.filter((s) => s.parentSpanId === read.spanId).map((s) => attr(s, 'gen_ai.operation.name'))).toEqual(['execute_tool']);

      const classify = named('node classify[each-file=0]');
      const agents = spans.filter((s) => s.parentSpanId === classify.spanId);
      expect(agents.map((s) => attr(s, 'gen_ai.operation.name'))).toEqual(['invoke_agent']);
      const chats = spans.filter((s) => s.parentSpanId === agents[0]?.spanId);
      expect(chats.length).toBeGreaterThan(0);
      expect(chats.every((s) => attr(s, 'gen_ai.operation.name') === 'chat')).toBe(true);

      const write = named('node write');
      const underWrite = spans.filter((s) => s.parentSpanId === write.spanId).map((s) => attr(s, 'gen_ai.operation.name'));
      expect(underWrite).toEqual(['apply_guardrail', 'execute_tool']);
      const review = spans.find((s) => s.parentSpanId === write.spanId && attr(s, 'gen_ai.operation.name') === 'apply_guardrail') as OtlpSpan;
      expect(spans.filter((s) => s.parentSpanId === review.spanId).map((s) => attr(s, 'steward.role'))).toEqual(['teacher']);
      expect(spans.every((s) => s.traceId === root.traceId)).toBe(true);
    } finally {
      ws.cleanup();
    }
  }, 60_000);
});
