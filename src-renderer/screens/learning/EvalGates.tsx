import type { GateResult } from '@shared/eval/report';

const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

/** An eval report's gates: value, threshold, pass or fail (every suite's card shows them the same way). */
export function Gates({ gates, suite }: { gates: GateResult[]; suite: string }) {
  return (
    <div className="table-wrap">
      <table className="table table--compact" data-testid={`eval-gates-${suite}`}>
        <thead>
          <tr>
            <th>Gate</th>
            <th className="num">Value</th>
            <th className="num">Threshold</th>
            <th>Result</th>
          </tr>
        </thead>
        <tbody>
          {gates.map((g) => (
            <tr key={g.id} data-gate={g.id} data-passed={g.passed}>
              <td>{g.label}</td>
              <td className="num">{num(g.value)}</td>
              <td className="num">
                {g.comparator === '>=' ? '≥' : '≤'} {num(g.threshold)}
              </td>
              <td>{g.passed ? <span className="tag">pass</span> : <span className="tag tag--bad">fail</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
