import type { RunEvent } from '@shared/contracts/events';
import type { PriceList } from '@shared/accounting/price-list';
import { runCostOfEvents, type UsageTotals } from '@shared/accounting/run-cost';
import type { SpanAttributes } from './span-record';

/**
 * What supervision cost (issue 31) on a run's root span. The run's own tokens under the GenAI
 * semantic conventions' names (`gen_ai.usage.input_tokens` / `output_tokens`: every model call of
 * the run, added up); the rest under `steward.*`: supervision's calls, tokens, dollars and the
 * latency it added, per role, the minutes the run waited for a person, and interventions by kind.
 * A figure the run did not record is left out (never exported as 0); `*.cost_complete` false says
 * a dollar figure is a lower bound (a call not recorded, or a model with no price).
 */
export function costAttributes(events: readonly RunEvent[], prices: PriceList): SpanAttributes {
  const cost = runCostOfEvents(events, prices);
  const attributes: SpanAttributes = {};
  const total = cost.total;
  if (total.counted_calls > 0) {
    attributes['gen_ai.usage.input_tokens'] = total.input_tokens;
    attributes['gen_ai.usage.output_tokens'] = total.output_tokens;
  }
  put(attributes, 'steward.supervision', cost.supervision);
  if (total.calls > 0 && total.recorded_calls > 0) {
    attributes['steward.cost.usd'] = total.usd;
    attributes['steward.cost.complete'] = total.complete;
  }
  for (const role of cost.roles) if (role.role !== 'student') put(attributes, `steward.supervision.${role.role}`, role);
  if (cost.person.asks > 0) {
    attributes['steward.person.asks'] = cost.person.asks;
    attributes['steward.person.wait_ms'] = cost.person.waited_ms;
  }
  for (const [kind, n] of Object.entries(cost.interventions)) attributes[`steward.interventions.${kind}`] = n;
  return attributes;
}

function put(attributes: SpanAttributes, prefix: string, t: UsageTotals): void {
  if (t.calls === 0 && t.recorded_calls === 0) return;
  attributes[`${prefix}.calls`] = t.calls;
  if (t.recorded_calls === 0) return;
  if (t.counted_calls > 0) {
    attributes[`${prefix}.input_tokens`] = t.input_tokens;
    attributes[`${prefix}.output_tokens`] = t.output_tokens;
  }
  attributes[`${prefix}.cost_usd`] = t.usd;
  attributes[`${prefix}.cost_complete`] = t.complete;
  attributes[`${prefix}.latency_ms`] = t.latency_ms;
  if (t.unpriced_models.length > 0) attributes[`${prefix}.unpriced_models`] = [...t.unpriced_models];
}
