import { useContext } from 'react';
import { StartConnect } from './connect-context';

/**
 * An output port's name on a node: in the editor a button (Tab to it, Enter or Space) that starts
 * a connection from the keyboard — the picker of compatible inputs opens. `nokey`: React Flow
 * leaves its node keys (select, move) to the button; `nodrag`: a press is not a node drag.
 */
export function OutputPortName({ node, port }: { node: string; port: string }) {
  const start = useContext(StartConnect);
  if (!start) return <span className="wf-node__port-name">{port}</span>;
  return (
    <button
      type="button"
      className="wf-node__port-name wf-node__port-connect nodrag nopan nokey"
      aria-label={`Connect output ${port} of ${node} to an input`}
      title="Connect to an input (Enter)"
      onClick={(e) => {
        e.stopPropagation();
        start({ node, port });
      }}
      data-testid={`connect-${node}-${port}`}
    >
      {port}
    </button>
  );
}
