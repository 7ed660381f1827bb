import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { connectTargets, pickerKey, type PortRef } from './connect-targets';
import type { Draft } from './graph-edit';

/**
 * Connecting by keyboard: the inputs of other nodes that the chosen output port may feed, as a
 * listbox (arrows, Enter, Escape). Picking one connects them as a drag would (`onConnect`); closing
 * gives the focus back to the port it came from.
 */
export function ConnectPicker({ draft, from, onConnect, onClose }: { draft: Draft; from: PortRef; onConnect: (to: PortRef) => void; onClose: () => void }) {
  const id = useId();
  const targets = useMemo(() => connectTargets(draft, from), [draft, from]);
  const [active, setActive] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    // The element that opened the picker (the port) gets the focus back when it goes.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    (list.current ?? close.current)?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  const pick = (i: number) => {
    const target = targets[i];
    if (!target) return;
    onConnect(target.to);
    onClose();
  };
  const onKeyDown = (e: React.KeyboardEvent) => {
    const next = pickerKey(e.key, active, targets.length);
    if (!next) {
      // Delete in the picker deletes nothing on the canvas behind it.
      if (e.key === 'Delete' || e.key === 'Backspace') e.stopPropagation();
      return;
    }
    // Not the canvas's keys too (Delete, arrows moving the selected nodes, Escape deselecting).
    e.preventDefault();
    e.stopPropagation();
    setActive(next.active);
    if (next.close) onClose();
    else if (next.pick !== undefined) pick(next.pick);
  };
  const title = `Connect ${from.node} · ${from.port} to`;
  return (
    <div className="wf-connect" role="dialog" aria-label={title} data-testid="connect-picker" onKeyDown={onKeyDown}>
      <p className="wf-connect__title" id={`${id}-title`}>
        {title}…
      </p>
      {targets.length > 0 ? (
        <ul className="wf-connect__list" role="listbox" aria-labelledby={`${id}-title`} tabIndex={0} ref={list} aria-activedescendant={`${id}-${active}`} data-testid="connect-targets">
          {targets.map((t, i) => (
            <li
              key={`${t.to.node}\u0000${t.to.port}`}
              id={`${id}-${i}`}
              role="option"
              aria-selected={i === active}
              className={`wf-connect__option ${i === active ? 'wf-connect__option--active' : ''}`}
              onMouseEnter={() => setActive(i)}
              onClick={() => pick(i)}
              data-testid={`connect-target-${t.to.node}-${t.to.port}`}
            >
              {t.label}
              {t.connected ? <span className="muted"> · connected</span> : t.replaces ? <span className="muted"> · replaces {t.replaces.node} · {t.replaces.port}</span> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted" data-testid="connect-none">
          No input of another node takes this port&apos;s value.
        </p>
      )}
      <p className="wf-connect__hint muted">↑ ↓ to choose, Enter to connect, Esc to cancel.</p>
      <button type="button" className="button button--small" onClick={onClose} ref={close} data-testid="connect-cancel">
        Cancel
      </button>
    </div>
  );
}
