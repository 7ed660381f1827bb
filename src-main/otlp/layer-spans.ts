import type { RunEventOf } from '@shared/contracts/events';
import type { JudgmentRecord } from '@shared/pattern/contracts';
import type { SpanAttributes, SpanRecord, SpanStatusRecord } from './span-record';

/**
 * The two layers above the decision boundary as spans (issue 29), beside the agent and SCS spans
 * trace-to-spans.ts makes, in the same trace:
 *
 *   node INVOCATION                         a pattern node (seed 002)
 *   ├ pattern_iteration N                   one iteration (PIPELINE: STEP.N): from its first member to the next iteration
 *   │ ├ invoke_agent NAME · MEMBER          each member's agent run (its chat, review and tool spans under it)
 *   │ └ apply_guardrail pattern_judgment    each judgment call: caller, verdict, evidence, verification
 *   │   (+ span event gen_ai.evaluation.result on the iteration: the verdict as a GenAI evaluation)
 *   node INVOCATION                         a node that failed under a workflow supervisor (seed 004)
 *   └ invoke_agent Workflow supervisor      the escalation until its verdict: allowed set, action, who decided, cost
 *     └ chat MODEL                          each call of a model supervisor (the privacy log's record)
 *
 * A verdict no supervisor was asked for (sticky, a bound, only fail allowed) is `supervisor_escalation`
 * with no GenAI operation: nothing was invoked. Values are the trace's, masked as it stored them.
 */

/** What the mapper gives these layers: its span factory and what it knows of models and calls. */
export interface SpanSink {
  start(name: string, key: string, startMs: number, parentSpanId: string | undefined, attributes: SpanAttributes, kind?: SpanRecord['kind']): SpanRecord;
  end(span: SpanRecord, ms: number, status: SpanStatusRecord): void;
  /** The GenAI provider and model of a Steward model label (and its server, when another machine). */
  model(label: string): { provider: string; model: string; address?: string; port?: number };
  /** A call's privacy-log record on its span: data categories, bytes, where it went. */
  call(span: SpanRecord, call: RunEventOf<'model.called'>): void;
}

/** `proponent#2` → step 0, iteration 2; `writer#3.1` → step 2, iteration 1 (memberOutputId's format). */
export function memberPlace(member: string): { step: number; iteration: number } | undefined {
  const m = /#(?:(\d+)\.)?(\d+)$/.exec(member);
  if (!m) return undefined;
  return { step: m[1] !== undefined ? Number(m[1]) - 1 : 0, iteration: Number(m[2]) };
}

const placeText = (step: number, iteration: number): string => (step === 0 ? `${iteration}` : `${step + 1}.${iteration}`);

export class PatternSpans {
  /** The open iteration of each pattern node invocation (iterations run one after another). */
  private readonly open = new Map<string, { span: SpanRecord; place: string }>();

  constructor(private readonly sink: SpanSink) {}

  /** The span a member's agent run goes under: its iteration's, opened by the iteration's first member. */
  memberParent(invocation: string, member: string, ms: number, nodeSpan: SpanRecord | undefined): SpanRecord | undefined {
    const place = memberPlace(member);
    return place ? this.iteration(invocation, place.step, place.iteration, ms, nodeSpan) : nodeSpan;
  }

  /** `pattern.iteration`: its members are done; the outputs they gave (the ids a verdict cites). */
  iterated(event: RunEventOf<'pattern.iteration'>, ms: number, nodeSpan: SpanRecord | undefined): void {
    const span = this.iteration(event.invocation_id ?? '', event.step, event.iteration, ms, nodeSpan);
    const ids = event.outputs.map((o) => o.id);
    span.attributes['steward.pattern.outputs'] = ids;
    span.events.push({ name: 'steward.pattern.iteration', timeMs: ms, attributes: { 'steward.pattern.outputs': ids } });
  }

  /** One judgment call as a span in its iteration, and its verdict as a GenAI evaluation result on the iteration. */
  judged(event: RunEventOf<'pattern.judgment'>, ms: number, nodeSpan: SpanRecord | undefined): SpanRecord {
    const j = event.judgment;
    const iteration = this.iteration(event.invocation_id ?? '', j.step, j.iteration, ms, nodeSpan);
    const startMs = Math.max(timeOr(j.started_at, ms), iteration.startMs);
    const endMs = Math.max(startMs, Math.min(timeOr(j.ended_at, ms), ms));
    const span = this.sink.start('apply_guardrail pattern_judgment', `judgment:${event.seq}`, startMs, iteration.spanId, {
      'gen_ai.operation.name': 'apply_guardrail',
      'steward.guardrail.name': 'pattern_judgment',
      'steward.judgment.id': j.id,
      'steward.judgment.attempt': j.attempt,
      'steward.pattern.step': j.step,
      'steward.pattern.iteration': j.iteration,
      'steward.judgment.evidence': [...j.evidence],
      'steward.judgment.verified': j.verification.ok,
      ...callerAttributes(j.caller),
    });
    if (j.verdict) span.attributes['steward.verdict'] = j.verdict.verdict;
    const status: SpanStatusRecord = !j.verification.ok ? { code: 'error', message: j.verification.problem } : j.verdict ? { code: 'ok' } : { code: 'error', message: 'the judge gave no verdict' };
    if (!j.verification.ok) span.attributes['error.type'] = 'verification_failed';
    this.sink.end(span, endMs, status);
    // Only a verified verdict is the judgment's result (an unverified one was asked again, or escalated).
    if (j.verdict && j.verification.ok) iteration.events.push({ name: 'gen_ai.evaluation.result', timeMs: endMs, attributes: evaluation(j) });
    return span;
  }

  preferred(event: RunEventOf<'pattern.preference'>, ms: number, nodeSpan: SpanRecord | undefined): void {
    nodeSpan?.events.push({
      name: 'steward.pattern.preference',
      timeMs: ms,
      attributes: { 'steward.pattern.step': event.step, 'steward.judgment.rejected': event.judgments.rejected, 'steward.judgment.approved': event.judgments.approved },
    });
  }

  ended(event: RunEventOf<'pattern.ended'>, ms: number, nodeSpan: SpanRecord | undefined): void {
    this.close(event.invocation_id ?? '', ms);
    if (!nodeSpan) return;
    const attributes: SpanAttributes = { 'steward.pattern.status': event.status, 'steward.pattern.approved': event.approved, 'steward.pattern.iterations': event.iterations };
    if (event.reason !== undefined) attributes['steward.pattern.reason'] = event.reason;
    Object.assign(nodeSpan.attributes, attributes);
    nodeSpan.events.push({ name: 'steward.pattern.ended', timeMs: ms, attributes });
  }

  /** The node invocation ended (or the run did): its open iteration ends with it. */
  close(invocation: string, ms: number): void {
    const open = this.open.get(invocation);
    if (!open) return;
    this.open.delete(invocation);
    this.sink.end(open.span, ms, { code: 'unset' });
  }

  private iteration(invocation: string, step: number, iteration: number, ms: number, nodeSpan: SpanRecord | undefined): SpanRecord {
    const place = placeText(step, iteration);
    const current = this.open.get(invocation);
    if (current?.place === place) return current.span;
    // The next iteration began: the one before it ends here.
    this.close(invocation, ms);
    const span = this.sink.start(`pattern_iteration ${place}`, `iteration:${invocation}:${place}`, ms, nodeSpan?.spanId, {
      'steward.invocation.id': invocation,
      'steward.pattern.step': step,
      'steward.pattern.iteration': iteration,
    });
    this.open.set(invocation, { span, place });
    return span;
  }
}

function callerAttributes(caller: JudgmentRecord['caller']): SpanAttributes {
  switch (caller.kind) {
    case 'llm':
      return { 'steward.judgment.caller': 'llm', 'steward.judgment.caller.profile': caller.profile, ...(caller.model !== undefined ? { 'steward.judgment.caller.model': caller.model } : {}) };
    case 'human':
      return { 'steward.judgment.caller': 'human', ...(caller.who !== undefined ? { 'steward.judgment.caller.who': caller.who } : {}) };
    case 'a2a':
      return {
        'steward.judgment.caller': 'a2a',
        'steward.judgment.caller.url': caller.url,
        ...(caller.name !== undefined ? { 'steward.judgment.caller.name': caller.name } : {}),
        ...(caller.agent ? { 'gen_ai.agent.name': caller.agent.name, 'steward.judgment.caller.agent_version': caller.agent.version } : {}),
      };
    case 'verifier':
      return { 'steward.judgment.caller': 'verifier', 'steward.judgment.caller.verifier': caller.verifier, 'steward.judgment.caller.name': caller.name };
    case 'system':
      return { 'steward.judgment.caller': 'system' };
  }
}

/** A verdict as the GenAI `gen_ai.evaluation.result` event: its kind as the label, its feedback or reason as the explanation. */
function evaluation(j: JudgmentRecord): SpanAttributes {
  const v = j.verdict;
  const attributes: SpanAttributes = { 'gen_ai.evaluation.name': 'steward.pattern.judgment', 'gen_ai.evaluation.score.label': v?.verdict ?? 'none' };
  if (v?.verdict === 'rejected') attributes['gen_ai.evaluation.explanation'] = v.feedback;
  if (v?.verdict === 'escalated') attributes['gen_ai.evaluation.explanation'] = v.reason;
  return attributes;
}

const SUPERVISOR_AGENT = 'Workflow supervisor';

interface OpenDecision {
  span: SpanRecord;
  /** The model call in flight (a chat span), until the next call or the verdict. */
  chat?: SpanRecord;
}

export class SupervisorSpans {
  private readonly open = new Map<string, OpenDecision>();
  /** Decisions are taken one at a time: a supervisor's model calls belong to the one escalated last. */
  private current?: OpenDecision;
  private supervisor: NonNullable<RunEventOf<'workflow.started'>['supervisor']> | undefined;

  constructor(
    private readonly sink: SpanSink,
    private readonly runId: string,
  ) {}

  started(event: RunEventOf<'workflow.started'>): void {
    this.supervisor = event.supervisor;
  }

  escalated(event: RunEventOf<'supervisor.escalated'>, ms: number, parent: SpanRecord | undefined): void {
    const e = event.escalation;
    const attributes: SpanAttributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': SUPERVISOR_AGENT,
      'gen_ai.conversation.id': this.runId,
      'steward.supervisor.kind': this.supervisor?.kind ?? 'unknown',
      'steward.node.id': e.node,
      'steward.invocation.id': e.invocation_key,
      'steward.escalation.id': e.id,
      'steward.escalation.attempt': e.attempt,
      'steward.escalation.detail': e.detail,
      'steward.escalation.allowed_actions': [...e.allowed_actions],
      'steward.escalation.retry_safe': e.retry_safe,
      'steward.escalation.spent_usd': e.spent_usd,
    };
    if (e.failure_signature.code !== undefined) attributes['steward.escalation.failure_code'] = e.failure_signature.code;
    if (e.failure_signature.http_status !== undefined) attributes['steward.escalation.http_status'] = e.failure_signature.http_status;
    if (this.supervisor?.kind === 'model') {
      const model = this.sink.model(this.supervisor.label);
      attributes['gen_ai.provider.name'] = model.provider;
      attributes['gen_ai.request.model'] = model.model;
    }
    const decision: OpenDecision = { span: this.sink.start(`invoke_agent ${SUPERVISOR_AGENT}`, `supervisor:${e.id}`, ms, parent?.spanId, attributes) };
    this.open.set(e.id, decision);
    this.current = decision;
  }

  /** A model supervisor's call (the privacy log): a chat span under the decision, until the next call or the verdict. */
  called(event: RunEventOf<'model.called'>, ms: number): void {
    const decision = this.current;
    if (!decision) return;
    if (decision.chat && event.attempt > 1) {
      // The same call made again after a transient error: one span, its attempts counted.
      this.sink.call(decision.chat, event);
      return;
    }
    if (decision.chat) this.sink.end(decision.chat, ms, { code: 'unset' });
    const model = this.sink.model(event.model);
    const chat = this.sink.start(`chat ${model.model}`, `supervisor-call:${event.seq}`, ms, decision.span.spanId, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': model.provider,
      'gen_ai.request.model': model.model,
      'steward.role': 'supervisor',
    }, 'client');
    if (model.address !== undefined) chat.attributes['server.address'] = model.address;
    if (model.port !== undefined) chat.attributes['server.port'] = model.port;
    this.sink.call(chat, event);
    decision.chat = chat;
  }

  verdict(event: RunEventOf<'supervisor.verdict'>, ms: number, parent: SpanRecord | undefined): void {
    const v = event.verdict;
    let decision = this.open.get(v.escalation_id);
    // A cut trace (the verdict without its escalation): the decision spans no time.
    if (!decision) {
      this.escalatedWithout(event, ms, parent);
      decision = this.open.get(v.escalation_id);
      if (!decision) return;
    }
    this.open.delete(v.escalation_id);
    if (this.current === decision) this.current = undefined;
    if (decision.chat) this.sink.end(decision.chat, ms, { code: 'unset' });
    const { span } = decision;
    Object.assign(span.attributes, {
      'steward.supervisor.action': v.verdict.action,
      'steward.supervisor.decided_by': v.decided_by,
      'steward.supervisor.reason': v.verdict.reason,
      'steward.supervisor.turns': v.turns,
      'steward.supervisor.cost_usd': v.cost_usd,
      'steward.supervisor.next': event.next,
    });
    span.events.push({ name: 'steward.supervisor.verdict', timeMs: ms, attributes: { 'steward.supervisor.action': v.verdict.action, 'steward.supervisor.decided_by': v.decided_by, 'steward.supervisor.reason': v.verdict.reason } });
    if (v.malformed) {
      span.events.push({
        name: 'steward.supervisor.malformed_answer',
        timeMs: ms,
        attributes: { 'steward.supervisor.problem': v.malformed.problem, 'steward.supervisor.answer': v.malformed.answer, 'steward.supervisor.repairs': v.malformed.repairs },
      });
    }
    if (v.turns === 0) {
      // Nobody was asked (a remembered verdict, a bound, only fail allowed): no agent was invoked.
      span.name = 'supervisor_escalation';
      for (const key of ['gen_ai.operation.name', 'gen_ai.agent.name', 'gen_ai.provider.name', 'gen_ai.request.model']) delete span.attributes[key];
    }
    const status = verdictStatus(v);
    if (status.code === 'error') span.attributes['error.type'] = v.malformed ? 'malformed_verdict' : v.decided_by === 'kernel' ? 'verdict_refused' : 'no_decision';
    this.sink.end(span, ms, status);
  }

  private escalatedWithout(event: RunEventOf<'supervisor.verdict'>, ms: number, parent: SpanRecord | undefined): void {
    const decision: OpenDecision = {
      span: this.sink.start(`invoke_agent ${SUPERVISOR_AGENT}`, `supervisor:${event.verdict.escalation_id}`, ms, parent?.spanId, {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': SUPERVISOR_AGENT,
        'gen_ai.conversation.id': this.runId,
        'steward.node.id': event.node,
        'steward.escalation.id': event.verdict.escalation_id,
      }),
    };
    if (event.invocation_id !== undefined) decision.span.attributes['steward.invocation.id'] = event.invocation_id;
    this.open.set(event.verdict.escalation_id, decision);
  }
}

/**
 * The decision's status: OK when the supervisor (or its remembered verdict) decided, whatever it
 * chose; ERROR when Steward had to decide over it (an unusable answer, an action outside the
 * allowed set, no answer in time); UNSET when a bound stopped it before it was asked.
 */
function verdictStatus(v: RunEventOf<'supervisor.verdict'>['verdict']): SpanStatusRecord {
  switch (v.decided_by) {
    case 'agent':
    case 'sticky':
      return { code: 'ok' };
    case 'bounds':
      return { code: 'unset' };
    case 'kernel':
    case 'default':
      return v.turns > 0 ? { code: 'error', message: v.verdict.reason } : { code: 'unset' };
  }
}

function timeOr(ts: string, fallback: number): number {
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? ms : fallback;
}
