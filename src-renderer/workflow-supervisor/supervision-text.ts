import { DECIDED_BY_LABELS, SUPERVISOR_ACTIONS, SUPERVISOR_ACTION_LABELS, type SupervisorAction } from '@shared/supervisor/contracts';
import type { NodeSupervision, VerdictNext } from './derive-supervision';

/** What the run did with the node after the verdict. */
export const NEXT_LABELS = {
  run_again: 'ran it again',
  done: 'used the substitute value',
  skip: 'went on without it',
  end_stream: 'ended its stream',
  failed: 'failed the node',
} satisfies Record<VerdictNext, string>;

/** The shield badges' short words, one per verdict action. */
export const BADGE_LABELS = {
  retry: 'retried',
  skip: 'skipped',
  substitute: 'substituted',
  end_stream: 'stream ended',
  fail: 'failed',
} satisfies Record<SupervisorAction, string>;


/** Dollars as a person reads a small amount: "$0", "$0.0125", "$1.20". */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  if (usd < 1) return `$${usd.toFixed(4).replace(/0+$/, '').replace(/\.$/, '')}`;
  return `$${usd.toFixed(2)}`;
}

export interface BadgeView {
  action: SupervisorAction;
  text: string;
  /** Tooltip and accessible name: the action, how often, and who decided. */
  label: string;
}

/** A node's shield badges, in the actions' order; the "deciding…" state separately (`person`: the verdict is yours to give). */
export function nodeBadges(node: NodeSupervision | undefined): { deciding: boolean; person: boolean; badges: BadgeView[] } {
  if (!node) return { deciding: false, person: false, badges: [] };
  const badges = SUPERVISOR_ACTIONS.flatMap((action) => {
    const v = node.verdicts[action];
    if (!v) return [];
    const times = v.count > 1 ? ` ×${v.count}` : '';
    return [{ action, text: `${BADGE_LABELS[action]}${times}`, label: `Supervisor verdict: ${SUPERVISOR_ACTION_LABELS[action]}${times}, decided by ${v.decided_by.map((d) => DECIDED_BY_LABELS[d]).join(' and ')}` }];
  });
  return { deciding: node.deciding > 0, person: node.waiting_for_person > 0, badges };
}
