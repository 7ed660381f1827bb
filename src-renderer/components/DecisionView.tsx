import { DECISION_LABELS, type Decision } from '@shared/contracts/decision';
import { EFFECT_LABELS, isProtectedEffect, type EffectClass } from '@shared/contracts/tool-effect';
import { controlText, shortJson, type CandidateDisplay } from '../view/describe-decision';
import { Chip } from './Chip';
import { ScrollPre } from './ScrollPre';

export function EffectTag({ effect }: { effect: EffectClass }) {
  return (
    <span className={`effect ${isProtectedEffect(effect) ? 'effect--protected' : ''}`} title={isProtectedEffect(effect) ? 'Protected effect: reviewed before it runs' : 'Read-only'}>
      {EFFECT_LABELS[effect]}
    </span>
  );
}

function ArgumentsView({ args }: { args: Record<string, unknown> }) {
  const entries = Object.entries(args);
  if (entries.length === 0) return <span className="muted">no arguments</span>;
  return (
    <dl className="args">
      {entries.map(([key, value]) => (
        <div key={key} className="args__row">
          <dt>{key}</dt>
          <dd>
            <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** One decision as a person reads it: a tool call with its arguments, or a control response. */
export function DecisionView({ decision, effect }: { decision: Decision; effect?: EffectClass }) {
  if (decision.decision_type === 'tool_call') {
    return (
      <div className="decision">
        <div className="decision__head">
          <span className="decision__kind">Tool call</span>
          <code className="decision__tool">{decision.tool_name}</code>
          {effect && <EffectTag effect={effect} />}
        </div>
        <ArgumentsView args={decision.arguments} />
      </div>
    );
  }
  return (
    <div className="decision">
      <div className="decision__head">
        <span className="decision__kind">{DECISION_LABELS[decision.decision_type]}</span>
      </div>
      <p className="decision__text">{controlText(decision)}</p>
    </div>
  );
}

/** A candidate, which may not even be a decision: show what the model said and why it could not be read. */
export function CandidateBody({ display, effect }: { display: CandidateDisplay; effect?: EffectClass }) {
  switch (display.kind) {
    case 'decision':
      return <DecisionView decision={display.decision} effect={effect} />;
    case 'unparseable':
      return (
        <div className="decision">
          <div className="decision__head">
            <Chip tone="failed">Unparseable</Chip>
            <span className="muted">{display.error}</span>
          </div>
          <ScrollPre className="code code--quote">{display.text || '(empty reply)'}</ScrollPre>
        </div>
      );
    case 'malformed':
      return (
        <div className="decision">
          <div className="decision__head">
            <Chip tone="failed">Not a valid decision</Chip>
            {display.toolCalls > 1 && <span className="muted">{display.toolCalls} tool calls in one reply</span>}
          </div>
          <ScrollPre>{shortJson(display.raw)}</ScrollPre>
        </div>
      );
  }
}
