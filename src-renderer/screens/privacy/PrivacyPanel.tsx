import { useMemo } from 'react';
import type { RunEvent } from '@shared/contracts/events';
import { Chip } from '../../components/Chip';
import { plural } from '../../view/format';
import { SpacerRow, useWindowRows } from '../runs/virtual-rows';
import { CALLER_LABELS, PURPOSE_LABELS, dataLabels, formatBytes, placeLabel, privacyLog, type ModelCall, type PrivacyGroup, type PrivacyRow } from './privacy-log';
import { roundNumber } from '@shared/contracts/round-number';
import { serverCalls } from './server-calls';
import { ServerCallsSection } from './ServerCallsSection';
import { A2aCallsSection } from './A2aCallsSection';

const COLUMNS = 5;

/**
 * The run's privacy log: which model, where, was sent which kinds of data, call by call (committee
 * and monitor included). Categories, sizes and hosts only: the log never holds what was sent.
 */
export function PrivacyPanel({ events }: { events: readonly RunEvent[] }) {
  const log = useMemo(() => privacyLog(events), [events]);
  const servers = useMemo(() => serverCalls(events), [events]);
  if (log.calls === 0) {
    return (
      <div className="empty" data-testid="privacy-empty">
        {log.declared.length > 0 ? (
          <>
            <h2>No model call is logged for this run</h2>
            <p className="muted">It was recorded before each call was logged, or no model has been asked yet. What each role is shown in a run:</p>
            <ul className="privacy__declared">
              {log.declared.map((d) => (
                <li key={d.role}>
                  <strong>{d.role}</strong> <code>{d.model}</code> ({d.local ? 'this machine' : (d.host ?? 'another machine')}): {d.data.join(', ')}
                </li>
              ))}
            </ul>
          </>
        ) : (
          <h2>No model has been called yet</h2>
        )}
        <ServerCallsSection servers={servers} />
        <A2aCallsSection events={events} />
      </div>
    );
  }
  return (
    <section className="privacy" aria-label="Privacy log" data-testid="privacy-panel">
      <p className="muted" data-testid="privacy-summary">
        {`${plural(log.calls, 'model call')}${log.remote > 0 ? `, ${log.remote} of them to another machine` : ', all on this machine'}.`} The log holds the kinds of data each
        prompt carried and its size, never the data.
      </p>
      <PrivacyTable rows={log.rows} />
      <ServerCallsSection servers={servers} />
      <A2aCallsSection events={events} />
    </section>
  );
}

function PrivacyTable({ rows }: { rows: readonly PrivacyRow[] }) {
  const { bodyRef, items, top, bottom, measure } = useWindowRows(rows.length, 37);
  return (
    <div className="card table-wrap">
      <table className="table table--compact" data-testid="privacy-list" aria-rowcount={rows.length + 1}>
        <thead>
          <tr>
            <th scope="col">Caller</th>
            <th scope="col">When</th>
            <th scope="col">Data sent</th>
            <th scope="col" className="num">
              Size
            </th>
            <th scope="col" className="num">
              Attempt
            </th>
          </tr>
        </thead>
        <tbody ref={bodyRef}>
          <SpacerRow height={top} columns={COLUMNS} />
          {items.map((item) => {
            const row = rows[item.index]!;
            return row.kind === 'group' ? (
              <tr key={`g:${row.group.key}`} ref={measure} data-index={item.index} aria-rowindex={item.index + 2} data-testid="privacy-group" data-local={row.group.local}>
                <th scope="rowgroup" colSpan={COLUMNS}>
                  <GroupHead group={row.group} />
                </th>
              </tr>
            ) : (
              <tr key={row.call.id} ref={measure} data-index={item.index} aria-rowindex={item.index + 2} data-testid="privacy-call">
                <td>
                  {CALLER_LABELS[row.call.caller]} <span className="muted">· {PURPOSE_LABELS[row.call.purpose]}</span>
                </td>
                <td>{whenOf(row.call)}</td>
                <td>{dataLabels(row.call.data)}</td>
                <td className="num">{formatBytes(row.call.bytes)}</td>
                <td className="num">{row.call.attempt > 1 ? `retry ${row.call.attempt - 1}` : '1'}</td>
              </tr>
            );
          })}
          <SpacerRow height={bottom} columns={COLUMNS} />
        </tbody>
      </table>
    </div>
  );
}

function GroupHead({ group }: { group: PrivacyGroup }) {
  return (
    <span className="privacy__group">
      {group.local ? (
        <Chip tone="executed" title="Prompts stayed on this machine">
          Local
        </Chip>
      ) : (
        <Chip tone="escalated" title={`Prompts left this machine for ${group.host ?? 'another host'} (the workspace privacy policy allows it)`}>
          {`☁ Cloud · ${group.host ?? 'another machine'}`}
        </Chip>
      )}{' '}
      <code>{group.model}</code> {group.local && <span className="muted">on {placeLabel(group)}</span>} · {plural(group.calls.length, 'call')} · {formatBytes(group.bytes)} ·{' '}
      <span className="muted">saw {dataLabels(group.data)}</span>
    </span>
  );
}

/** The node invocation of a workflow run (e.g. `summarise[a=0]`), then the round or the SCS phase. */
function whenOf(call: ModelCall): string {
  // Rounds from 1, as the Rounds and Trace tabs number them; an SCS phase is never a bare "phase".
  const at = call.round !== undefined ? `round ${roundNumber(call.round)}` : call.phase !== undefined ? `SCS phase ${call.phase}` : '';
  return [call.invocation_id, at].filter(Boolean).join(' · ') || '—';
}
