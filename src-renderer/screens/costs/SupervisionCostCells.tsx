import type { PriceList } from '@shared/accounting/price-list';
import { tokenCountText, usdText } from '@shared/accounting/cost-words';
import { runCost } from '@shared/accounting/run-cost';
import type { RunRow } from '@shared/history/run-summary';

/** Extra classes for the cost and the tokens column (the Runs list folds them into the row when narrow). */
export interface CostColumnClasses {
  cost?: string;
  tokens?: string;
}
const cls = (base: string, extra?: string) => (extra ? `${base} ${extra}` : base);

/** The Runs list's two supervision columns' headers (issue 31). */
export function SupervisionCostHeaders({ classes }: { classes?: CostColumnClasses } = {}) {
  return (
    <>
      <th scope="col" className={cls('num', classes?.cost)} title="What the run's teacher, monitor, judge and supervisor calls cost, at the price list in Settings">
        Supervision cost
      </th>
      <th scope="col" className={cls('num', classes?.tokens)} title="Tokens in and out of the run's supervision calls">
        Supervision tokens
      </th>
    </>
  );
}

/** A run's supervision cost and tokens, from its row's facts; "—" for a run nobody supervised. */
export function SupervisionCostCells({ run, prices, classes }: { run: RunRow; prices: PriceList; classes?: CostColumnClasses }) {
  const cost = run.usage ? runCost(run.usage, prices) : undefined;
  const s = cost?.supervision;
  if (!s || s.calls === 0)
    return (
      <>
        <td className={cls('num muted', classes?.cost)} data-testid="run-row-supervision-cost">
          —
        </td>
        <td className={cls('num muted', classes?.tokens)} data-testid="run-row-supervision-tokens">
          —
        </td>
      </>
    );
  return (
    <>
      <td className={cls('num nowrap', classes?.cost)} data-testid="run-row-supervision-cost" title={`${s.calls} supervision call${s.calls === 1 ? '' : 's'}`}>
        {usdText(s)}
      </td>
      <td className={cls('num nowrap', classes?.tokens)} data-testid="run-row-supervision-tokens">
        {tokenCountText(s)}
      </td>
    </>
  );
}
