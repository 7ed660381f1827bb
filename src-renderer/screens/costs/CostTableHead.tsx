/** The three columns every supervision-cost table shares (issue 31), in this order. */
export const COST_COLUMNS = ['Tokens', 'Cost', 'Time in calls'] as const;

/**
 * A supervision-cost table's header row: its naming columns, then its figures (right-aligned, as
 * their cells are). The run report's table and the per-workflow table both read this way.
 */
export function CostTableHead({ names, figures }: { names: readonly string[]; figures: readonly string[] }) {
  return (
    <thead>
      <tr>
        {names.map((label) => (
          <th key={label} scope="col">
            {label}
          </th>
        ))}
        {figures.map((label) => (
          <th key={label} scope="col" className="num">
            {label}
          </th>
        ))}
      </tr>
    </thead>
  );
}
