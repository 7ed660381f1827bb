import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { ModelReply } from '@shared/contracts/model';
import { roundNumber } from '@shared/contracts/round-number';
import { PatternSpans, SupervisorSpans, type SpanSink } from './layer-spans';
import type { PriceList } from '@shared/accounting/price-list';
import { costAttributes } from './cost-attributes';
import type { SpanAttributes, SpanEventRecord, SpanRecord, SpanStatusRecord } from './span-record';
import { runSpanId, runTraceId, toolCallSpanKey } from './trace-ids';

/**
 * A run's events as spans, named and attributed after the OpenTelemetry GenAI semantic conventions:
 *
 *   invoke_workflow NAME              a workflow run (root)
 *   └ node INVOCATION                 each node invocation (under its iterate's, when it has one)
 *     └ invoke_agent NAME             an agent run (root), or an agent node of a workflow
 *     ├ chat MODEL                    each student proposal (and the teacher's, when it proposes)
 *     ├ apply_guardrail teacher_review a review the policy required, until the decision was selected
 *     │ └ chat MODEL                  each teacher verdict call
 *     └ execute_tool TOOL             each tool the boundary executed
 *       └ tools/call TOOL             its MCP request (client span, MCP semantic conventions)
 *
 * A tool node's steps are under its node span (its call is made by the graph, not a model: no chat).
 * A pattern node's iterations, members and judgments, and a workflow supervisor's decisions, are
 * spans of their own (layer-spans.ts), so all four layers are one trace.
 * Retries, interventions, handovers and SCS gates are span events on their agent span. Ids derive
 * from the run id, so exporting a run twice gives the same ids (a backend keeps one copy).
 * Only what the trace stores is exported: its values were masked before they were written.
 */
export function runSpans(events: readonly RunEvent[], prices: PriceList = {}): SpanRecord[] {
  const byRun = new Map<string, RunEvent[]>();
  for (const event of events) {
    const list = byRun.get(event.run_id) ?? [];
    list.push(event);
    byRun.set(event.run_id, list);
  }
  return [...byRun.values()].flatMap((list) => {
    const spans = new RunMapper(list.sort((a, b) => a.seq - b.seq)).spans();
    // What supervision cost (issue 31), on the run's root span.
    const root = spans.find((span) => span.parentSpanId === undefined);
    if (root) Object.assign(root.attributes, costAttributes(list, prices));
    return spans;
  });
}

export const STEWARD_SERVICE_NAME = 'steward';

interface AgentScope {
  /** agent: an agent run or agent node (its proposals are model calls); node: a tool node. */
  kind: 'agent' | 'node';
  span: SpanRecord;
  /** Who proposes this round (the teacher during a takeover). */
  proposer: 'student' | 'teacher';
  models: { student: string; teacher: string };
  round: number;
  /** When the last thing in this agent happened: the start of its next model call. */
  cursorMs: number;
  review?: SpanRecord;
  /** Dry run: no tool was called, so a tool span has no MCP request under it. */
  dryRun: boolean;
}

class RunMapper {
  private readonly out: SpanRecord[] = [];
  private readonly traceId: string;
  private readonly runId: string;
  private root?: SpanRecord;
  private readonly agents = new Map<string, AgentScope>();
  private readonly nodes = new Map<string, SpanRecord>();
  private readonly nodeKinds = new Map<string, string>();
  /** The privacy log's record of the call a chat span is about to close (the last attempt), by agent, caller and purpose. */
  private readonly calls = new Map<string, RunEventOf<'model.called'>>();
  private readonly open = new Set<SpanRecord>();
  /** The MCP client spans' keys so far (trace-ids.ts): one span per key. */
  private readonly mcpKeys = new Set<string>();
  /** The privacy log's record of a call to a remote MCP server (it comes before the call's result), by agent, server and tool. */
  private readonly remoteCalls = new Map<string, RunEventOf<'mcp.called'>>();
  /** A call's progress reports (tool.progress), by idempotency key, until its result comes. */
  private readonly progress = new Map<string, SpanEventRecord[]>();
  private workflowDry = false;
  /** Which server offers each tool, by agent and tool name (tools.snapshot). */
  private readonly toolServers = new Map<string, string>();
  private lastMs = 0;
  private readonly patterns: PatternSpans;
  private readonly supervisors: SupervisorSpans;

  constructor(private readonly events: readonly RunEvent[]) {
    this.runId = events[0]?.run_id ?? '';
    this.traceId = runTraceId(this.runId);
    const sink: SpanSink = {
      start: (...args) => this.start(...args),
      end: (span, ms, status) => this.end(span, ms, status),
      model: splitLabel,
      call: (span, call) => recordCall(span, call),
    };
    this.patterns = new PatternSpans(sink);
    this.supervisors = new SupervisorSpans(sink, this.runId);
  }

  spans(): SpanRecord[] {
    for (const event of this.events) {
      const ms = timeOf(event.ts, this.lastMs);
      this.lastMs = Math.max(this.lastMs, ms);
      this.map(event, ms);
    }
    // A run that has not finished (or a torn trace): its open spans end at the last event.
    for (const span of this.open) {
      span.endMs = Math.max(span.startMs, this.lastMs);
      span.attributes['steward.unfinished'] = true;
    }
    return this.out;
  }

  private map(event: RunEvent, ms: number): void {
    switch (event.type) {
      case 'workflow.started':
        for (const node of event.nodes) this.nodeKinds.set(node.id, node.kind);
        this.workflowDry = event.dry_run === true;
        this.supervisors.started(event);
        this.root = this.start(`invoke_workflow ${event.workflow_name}`, 'workflow', ms, undefined, {
          'gen_ai.operation.name': 'invoke_workflow',
          'gen_ai.workflow.name': event.workflow_name,
          'gen_ai.conversation.id': event.run_id,
          'steward.workflow.id': event.workflow_id,
        });
        return;
      case 'node.invocation':
        this.node(event, ms);
        return;
      case 'run.started':
      case 'agent.started':
        this.startAgent(event, ms);
        return;
      case 'agent.finished':
      case 'run.finished':
        this.finish(event, ms);
        return;
      case 'round.started': {
        const agent = this.agentOf(event);
        if (!agent) return;
        agent.round = event.round;
        agent.proposer = event.proposer;
        agent.cursorMs = ms;
        return;
      }
      case 'candidate.proposed': {
        const agent = this.agentOf(event);
        if (!agent) return;
        if (agent.kind === 'node') {
          agent.cursorMs = ms;
          return;
        }
        const chat = this.chat(agent, agent.proposer, event.reply, agent.span, ms, event.seq);
        this.privacy(chat, event, agent.proposer, 'propose');
        chat.attributes['steward.attempt'] = event.attempt ?? 0;
        const type = (event.parsed.raw as { decision_type?: unknown } | null | undefined)?.decision_type;
        if (typeof type === 'string') chat.attributes['steward.decision_type'] = type;
        if (event.parsed.parse_error !== undefined) chat.status = { code: 'error', message: 'the reply is not a decision Steward could parse' };
        return;
      }
      case 'review.decided': {
        const agent = this.agentOf(event);
        if (!agent) return;
        agent.cursorMs = ms;
        if (!event.review.required) return;
        agent.review = this.start('apply_guardrail teacher_review', `review:${event.seq}`, ms, agent.span.spanId, {
          'gen_ai.operation.name': 'apply_guardrail',
          'steward.guardrail.name': 'teacher_review',
          'steward.review.rule': event.review.rule,
          'steward.round': roundNumber(event.round),
        });
        return;
      }
      case 'verdict.received': {
        const agent = this.agentOf(event);
        if (!agent) return;
        const parent = agent.review ?? agent.span;
        const { attempt } = event;
        const chat = this.chat(agent, 'teacher', attempt.reply, parent, ms, event.seq);
        this.privacy(chat, event, 'teacher', 'review');
        chat.attributes['steward.attempt'] = attempt.attempt;
        if (attempt.verdict) chat.attributes['steward.verdict'] = attempt.verdict.verdict;
        if (!attempt.usable) chat.status = { code: 'error', message: attempt.problem ?? 'the verdict could not be used' };
        if (agent.review && attempt.verdict) {
          agent.review.attributes['steward.verdict'] = attempt.verdict.verdict;
          agent.review.attributes['steward.reason_codes'] = [...attempt.verdict.reason_codes];
        }
        return;
      }
      case 'decision.selected': {
        const agent = this.agentOf(event);
        if (!agent) return;
        agent.cursorMs = ms;
        const review = agent.review;
        if (!review) return;
        review.attributes['steward.decision.source'] = event.source;
        review.attributes['steward.decision_type'] = event.decision.decision_type;
        this.end(review, ms, { code: 'ok' });
        agent.review = undefined;
        return;
      }
      case 'tool.executed':
        this.tool(event, ms);
        return;
      case 'tools.snapshot':
        for (const tool of event.tools) this.toolServers.set(`${agentKey(event)}|${tool.name}`, tool.server);
        return;
      case 'round.completed':
        this.failedCall(event, ms);
        this.touch(event, ms);
        return;
      case 'mcp.called':
        this.remoteCalls.set(`${agentKey(event)}|${event.server}|${event.tool}`, event);
        return;
      case 'tool.progress': {
        const reports = this.progress.get(event.idempotency_key) ?? [];
        const attributes: SpanAttributes = { 'steward.progress': event.progress };
        if (event.total !== undefined) attributes['steward.progress.total'] = event.total;
        if (event.message !== undefined) attributes['steward.progress.message'] = event.message;
        reports.push({ name: 'notifications/progress', timeMs: ms, attributes });
        this.progress.set(event.idempotency_key, reports);
        return;
      }
      case 'pattern.iteration':
        this.patterns.iterated(event, ms, this.nodeOf(event));
        return;
      case 'pattern.judgment': {
        const span = this.patterns.judged(event, ms, this.nodeOf(event));
        // An LLM judge's call is in the privacy log under the node's own key, as a review.
        // (Recorded as the teacher's call before issue 31 named the judge.)
        if (event.judgment.caller.kind === 'llm' && !this.privacy(span, event, 'judge', 'review')) this.privacy(span, event, 'teacher', 'review');
        return;
      }
      case 'pattern.preference':
        this.patterns.preferred(event, ms, this.nodeOf(event));
        return;
      case 'pattern.ended':
        this.patterns.ended(event, ms, this.nodeOf(event));
        return;
      case 'supervisor.escalated':
        this.supervisors.escalated(event, ms, this.nodeOf(event) ?? this.root);
        return;
      case 'supervisor.verdict':
        this.supervisors.verdict(event, ms, this.nodeOf(event) ?? this.root);
        return;
      case 'model.called': {
        if (event.caller === 'supervisor') {
          this.supervisors.called(event, ms);
          return;
        }
        this.calls.set(`${agentKey(event)}|${event.caller}|${event.purpose}`, event);
        const agent = this.agentOf(event);
        if (agent) agent.cursorMs = ms;
        return;
      }
      // A call's end (issue 31): its tokens are on the run span (cost-attributes.ts); it is no step of its own.
      case 'model.answered':
        return;
      case 'model.retry':
        this.note(event, ms, 'steward.model.retry', {
          'steward.role': event.role,
          'steward.model': event.model,
          'steward.retry.attempt': event.attempt,
          'steward.retry.delay_ms': event.delay_ms,
          'steward.retry.reason': event.reason,
        });
        return;
      case 'intervention.requested':
        this.note(event, ms, 'steward.intervention.requested', { 'steward.intervention.kind': event.intervention.kind, 'steward.round': roundNumber(event.round) });
        return;
      case 'intervention.answered':
        this.note(event, ms, 'steward.intervention.answered', { 'steward.intervention.action': event.answer.action, 'steward.round': roundNumber(event.round) });
        return;
      case 'handover':
        this.note(event, ms, 'steward.handover', { 'steward.handover.to': event.to, 'steward.handover.reason': event.reason });
        return;
      default: {
        if (event.type.startsWith('scs.') && event.type !== 'scs.transcript') this.note(event, ms, `steward.${event.type}`, {});
        this.touch(event, ms);
      }
    }
  }

  private touch(event: RunEvent, ms: number): void {
    const agent = this.agentOf(event);
    if (agent) agent.cursorMs = ms;
  }

  /**
   * A call that failed outright (the server gone, a deadline) has no result of its own, only its
   * round's record: it is exported as a failed tool call all the same, lasting from the step before.
   */
  private failedCall(event: RunEventOf<'round.completed'>, ms: number): void {
    const { record } = event;
    const decision = record.selected?.decision;
    const key = record.authorization?.ok ? record.authorization.idempotency_key : undefined;
    if (record.execution || record.reason !== 'tool_error' || decision?.decision_type !== 'tool_call' || key === undefined) return;
    const server = this.toolServers.get(`${agentKey(event)}|${decision.tool_name}`) ?? 'unknown';
    const since = this.agentOf(event)?.cursorMs ?? ms;
    const message = record.message ?? 'the tool call failed';
    this.tool(
      {
        type: 'tool.executed',
        id: event.id,
        run_id: event.run_id,
        seq: event.seq,
        ts: event.ts,
        round: event.round,
        ...(event.invocation_id === undefined ? {} : { invocation_id: event.invocation_id }),
        execution: { server, tool: decision.tool_name, arguments: decision.arguments, idempotency_key: key, ok: false, is_error: true, content: '', error: message, duration_ms: Math.max(0, ms - since) },
      },
      ms,
    );
  }

  private startAgent(event: RunEventOf<'run.started'> | RunEventOf<'agent.started'>, ms: number): void {
    const key = agentKey(event);
    const node = this.nodeOf(event) ?? this.root;
    // A pattern member's run goes under its iteration.
    const parent = event.type !== 'agent.started' ? undefined : event.pattern_member !== undefined ? this.patterns.memberParent(event.invocation_id ?? '', event.pattern_member, ms, node)?.spanId : node?.spanId;
    const span = this.start(`invoke_agent ${event.spec_name}`, `agent:${key}`, ms, parent, {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': event.spec_name,
      'gen_ai.agent.id': event.spec_id,
      'gen_ai.conversation.id': event.run_id,
      'gen_ai.request.model': modelName(event.models.student),
      'steward.models.student': event.models.student,
      'steward.models.teacher': event.models.teacher,
      'steward.supervision.phase': event.supervision.phase,
      'steward.dry_run': event.dry_run,
    });
    if (event.invocation_id !== undefined) span.attributes['steward.invocation.id'] = event.invocation_id;
    if (event.type === 'run.started') this.root = span;
    this.agents.set(key, { kind: 'agent', span, proposer: 'student', models: event.models, round: 0, cursorMs: ms, dryRun: event.dry_run });
  }

  private node(event: RunEventOf<'node.invocation'>, ms: number): void {
    const key = event.invocation_id ?? event.node;
    let span = this.nodes.get(key);
    if (event.status === 'pending') return;
    if (!span) {
      const parent = (event.parent !== undefined ? this.nodes.get(event.parent) : undefined) ?? this.root;
      span = this.start(`node ${key}`, `node:${key}`, ms, parent?.spanId, {
        'steward.node.id': event.node,
        'steward.node.kind': this.nodeKinds.get(event.node) ?? 'unknown',
        'steward.invocation.id': key,
      });
      this.nodes.set(key, span);
      // A tool node's steps (its call, a review of it) belong to this span until an agent starts here.
      if (!this.agents.has(key)) this.agents.set(key, { kind: 'node', span, proposer: 'student', models: { student: 'workflow', teacher: 'unknown' }, round: 0, cursorMs: ms, dryRun: this.workflowDry });
    }
    span.attributes['steward.node.status'] = event.status;
    if (event.status === 'running' || event.status === 'waiting') return;
    const status: SpanStatusRecord = event.status === 'done' ? { code: 'ok' } : event.status === 'failed' ? { code: 'error', message: event.failure?.message ?? 'the node failed' } : { code: 'unset' };
    if (event.failure) span.attributes['error.type'] = event.failure.code;
    this.patterns.close(key, ms);
    this.end(span, ms, status);
  }

  private finish(event: RunEventOf<'agent.finished'> | RunEventOf<'run.finished'>, ms: number): void {
    const span = event.type === 'run.finished' ? this.root : this.agents.get(agentKey(event))?.span;
    if (!span) return;
    span.attributes['steward.run.status'] = event.status;
    span.attributes['steward.rounds'] = event.rounds;
    const status: SpanStatusRecord =
      event.status === 'completed'
        ? { code: 'ok' }
        : // A run that lost items (issue 28) is ERROR, not UNSET: OpenTelemetry's status says whether the operation
          // succeeded, and one that did not do all it was asked did not; only ERROR carries a description, and the
          // description must name the failed items for a trace backend to show them. The failed item spans are ERROR too.
          event.status === 'failed' || event.status === 'interrupted' || event.status === 'completed_with_failures'
          ? { code: 'error', message: event.message ?? event.status }
          : { code: 'unset' };
    if (status.code === 'error') span.attributes['error.type'] = event.status;
    if ('partial' in event && event.partial) {
      span.attributes['steward.items.failed'] = event.partial.items_failed;
      span.attributes['steward.items.total'] = event.partial.items;
      span.attributes['steward.nodes.failed'] = event.partial.nodes_failed;
    }
    this.end(span, ms, status);
  }

  private chat(agent: AgentScope, role: 'student' | 'teacher', reply: ModelReply | undefined, parent: SpanRecord, ms: number, seq: number): SpanRecord {
    const label = reply?.model ?? agent.models[role];
    const model = modelName(label);
    // A recorded latency is the call itself; without one (an older trace) it spans from the agent's previous step.
    let startMs = agent.cursorMs;
    if (reply?.latency_ms !== undefined) {
      startMs = Math.max(ms - reply.latency_ms, agent.span.startMs);
      // The step before a call is stamped as the call begins, sometimes just after: a review starts with its call.
      if (parent !== agent.span && parent.startMs > startMs) parent.startMs = startMs;
    }
    const span = this.start(`chat ${model}`, `chat:${seq}`, startMs, parent.spanId, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': providerName(label),
      'gen_ai.request.model': model,
      'steward.role': role,
      'steward.round': roundNumber(agent.round),
    }, 'client');
    const server = serverAddress(label);
    if (server) {
      span.attributes['server.address'] = server.address;
      if (server.port !== undefined) span.attributes['server.port'] = server.port;
    }
    if (reply) {
      span.attributes['gen_ai.response.model'] = model;
      span.attributes['gen_ai.output.messages'] = JSON.stringify([outputMessage(reply)]);
      // Only what the server counted: an absent count is not exported as zero.
      if (reply.usage?.input_tokens !== undefined) span.attributes['gen_ai.usage.input_tokens'] = reply.usage.input_tokens;
      if (reply.usage?.output_tokens !== undefined) span.attributes['gen_ai.usage.output_tokens'] = reply.usage.output_tokens;
    }
    this.end(span, ms, { code: 'unset' });
    agent.cursorMs = ms;
    return span;
  }

  private tool(event: RunEventOf<'tool.executed'>, ms: number): void {
    const agent = this.agentOf(event);
    const { execution } = event;
    const startMs = Math.max(ms - execution.duration_ms, agent?.cursorMs ?? 0);
    const failed = !execution.ok || execution.is_error;
    const span = this.start(`execute_tool ${execution.tool}`, `tool:${event.seq}`, startMs, agent?.span.spanId ?? this.root?.spanId, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': execution.tool,
      'gen_ai.tool.type': 'extension',
      'gen_ai.tool.call.id': execution.idempotency_key,
      'gen_ai.tool.call.arguments': JSON.stringify(execution.arguments),
      'gen_ai.tool.call.result': execution.content,
      'steward.mcp.server': execution.server,
      'steward.round': roundNumber(event.round),
    });
    if (failed) span.attributes['error.type'] = execution.ok ? 'tool_error' : 'tool_call_failed';
    const status: SpanStatusRecord = failed ? { code: 'error', message: execution.error ?? 'the tool reported an error' } : { code: 'ok' };
    this.end(span, ms, status);
    if (agent) agent.cursorMs = ms;
    const remote = this.remoteCalls.get(`${agentKey(event)}|${execution.server}|${execution.tool}`);
    this.remoteCalls.delete(`${agentKey(event)}|${execution.server}|${execution.tool}`);
    const progress = this.progress.get(execution.idempotency_key) ?? [];
    this.progress.delete(execution.idempotency_key);
    if (agent?.dryRun === true) return;
    this.mcpRequest(span, event, remote, progress, status);
  }

  /**
   * The tool's MCP request as a client span after the MCP semantic conventions: `tools/call TOOL`
   * (`resources/read` for Steward's resource tool), how it went (stdio is a pipe; a remote server's
   * address from the privacy log), and the progress the server reported as its events.
   * `mcp.session.id` is not in the trace, so it is not exported. Its id derives from the call's
   * idempotency key (trace-ids.ts): the host sent the same id as the call's `traceparent`.
   */
  private mcpRequest(tool: SpanRecord, event: RunEventOf<'tool.executed'>, remote: RunEventOf<'mcp.called'> | undefined, progress: SpanEventRecord[], status: SpanStatusRecord): void {
    const { execution } = event;
    const method = execution.tool === `read_resource_${execution.server}` ? 'resources/read' : 'tools/call';
    const span = this.start(method === 'tools/call' ? `tools/call ${execution.tool}` : method, this.mcpKey(execution.idempotency_key, event.seq), tool.startMs, tool.spanId, {
      // No gen_ai.operation.name: the execute_tool span above is the GenAI operation, counted once.
      'mcp.method.name': method,
      'gen_ai.tool.name': execution.tool,
      'gen_ai.tool.call.id': execution.idempotency_key,
      'network.transport': remote ? 'tcp' : 'pipe',
      'steward.mcp.server': execution.server,
    }, 'client');
    if (remote) {
      span.attributes['network.protocol.name'] = 'http';
      setServerAddress(span, remote.host);
    }
    if (tool.attributes['error.type'] !== undefined) span.attributes['error.type'] = tool.attributes['error.type'];
    span.events.push(...progress);
    this.end(span, tool.endMs, status);
  }

  /** The call's span key; a second span for the same key (never expected) gets one of its own, so ids stay unique. */
  private mcpKey(idempotencyKey: string, seq: number): string {
    const key = toolCallSpanKey(idempotencyKey);
    if (!this.mcpKeys.has(key)) {
      this.mcpKeys.add(key);
      return key;
    }
    return `mcp:${seq}`;
  }

  private note(event: RunEvent, ms: number, name: string, attributes: SpanAttributes): void {
    const span = this.agentOf(event)?.span ?? this.root;
    const record: SpanEventRecord = { name, timeMs: ms, attributes };
    span?.events.push(record);
  }

  /** What the privacy log says the call sent: categories and bytes, never content (DESIGN.md §4). */
  private privacy(chat: SpanRecord, event: { invocation_id?: string; pattern_member?: string }, caller: 'student' | 'teacher' | 'judge', purpose: 'propose' | 'review'): boolean {
    const key = `${agentKey(event)}|${caller}|${purpose}`;
    const call = this.calls.get(key);
    if (!call) return false;
    this.calls.delete(key);
    recordCall(chat, call);
    return true;
  }

  private agentOf(event: { invocation_id?: string; pattern_member?: string }): AgentScope | undefined {
    return this.agents.get(agentKey(event));
  }

  /** The span of the node invocation an event belongs to (a pattern member's too). */
  private nodeOf(event: { invocation_id?: string }): SpanRecord | undefined {
    return event.invocation_id === undefined ? undefined : this.nodes.get(event.invocation_id);
  }

  private start(name: string, key: string, startMs: number, parentSpanId: string | undefined, attributes: SpanAttributes, kind: SpanRecord['kind'] = 'internal'): SpanRecord {
    const span: SpanRecord = {
      name,
      kind,
      traceId: this.traceId,
      spanId: runSpanId(this.runId, key),
      ...(parentSpanId !== undefined ? { parentSpanId } : {}),
      startMs,
      endMs: startMs,
      attributes,
      events: [],
      status: { code: 'unset' },
    };
    this.out.push(span);
    this.open.add(span);
    return span;
  }

  private end(span: SpanRecord, ms: number, status: SpanStatusRecord): void {
    span.endMs = Math.max(span.startMs, ms);
    span.status = status;
    this.open.delete(span);
  }
}

/** `server.address` and `server.port` of a `name[:port]` the host recorded. */
function setServerAddress(span: SpanRecord, host: string): void {
  const port = /^(.*):(\d+)$/.exec(host);
  span.attributes['server.address'] = port ? port[1]! : host;
  if (port) span.attributes['server.port'] = Number(port[2]);
}

/** The privacy log's record of a call on its span: categories and bytes, never content. */
function recordCall(span: SpanRecord, call: RunEventOf<'model.called'>): void {
  span.attributes['steward.privacy.data'] = [...call.data];
  span.attributes['steward.privacy.local'] = call.local;
  span.attributes['steward.request.bytes'] = call.bytes;
  if (call.attempt > 1) span.attributes['steward.request.attempts'] = call.attempt;
  // Where the prompt went, as the host sent it (the reply's label may not name the server).
  if (call.host !== undefined) setServerAddress(span, call.host);
}

/**
 * The agent an event belongs to: its workflow node invocation, or the run's own agent; in a pattern
 * node, the member's own run (all members share the node's invocation id).
 */
function agentKey(event: { invocation_id?: string; pattern_member?: string }): string {
  const node = event.invocation_id ?? '';
  return event.pattern_member === undefined ? node : `${node}|member:${event.pattern_member}`;
}

function timeOf(ts: string, fallback: number): number {
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? ms : fallback;
}

/**
 * A model label as Steward writes it (modelLabel): "replay", "ollama:MODEL" or "HOST[:PORT]:MODEL"
 * for an OpenAI-compatible server.
 */
function splitLabel(label: string): { provider: string; model: string; address?: string; port?: number } {
  if (label === 'replay') return { provider: 'steward.replay', model: 'replay' };
  if (label.startsWith('ollama:')) return { provider: 'ollama', model: label.slice('ollama:'.length) };
  const [host = '', maybePort = '', ...rest] = label.split(':');
  if (/^\d+$/.test(maybePort) && rest.length > 0) return { provider: 'openai', model: rest.join(':'), address: host, port: Number(maybePort) };
  if (maybePort !== '') return { provider: 'openai', model: [maybePort, ...rest].join(':'), address: host };
  return { provider: 'steward', model: label };
}

function modelName(label: string): string {
  return splitLabel(label).model;
}

function providerName(label: string): string {
  return splitLabel(label).provider;
}

function serverAddress(label: string): { address: string; port?: number } | undefined {
  const { address, port } = splitLabel(label);
  return address === undefined ? undefined : { address, ...(port !== undefined ? { port } : {}) };
}

/** The reply in the GenAI output-message shape: its text and its tool calls. */
function outputMessage(reply: ModelReply): unknown {
  const parts: unknown[] = [];
  if (reply.text !== '') parts.push({ type: 'text', content: reply.text });
  for (const call of reply.tool_calls) parts.push({ type: 'tool_call', name: call.name, arguments: call.arguments });
  return { role: 'assistant', parts };
}
