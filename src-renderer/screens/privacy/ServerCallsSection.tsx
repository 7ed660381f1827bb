import { Chip } from '../../components/Chip';
import { plural } from '../../view/format';
import { formatBytes } from './privacy-log';
import type { ServerSent } from './server-calls';

/** What each remote MCP server was sent: tools, argument names and sizes — never the values. */
export function ServerCallsSection({ servers }: { servers: readonly ServerSent[] }) {
  if (servers.length === 0) return null;
  return (
    <section className="card privacy__servers" aria-label="Remote MCP servers" data-testid="privacy-servers">
      <h3>Remote MCP servers</h3>
      <ul>
        {servers.map((s) => (
          <li key={s.key} data-testid="privacy-server" data-local={s.local}>
            {s.local ? (
              <Chip tone="executed" title="Tool calls stayed on this machine">
                Local
              </Chip>
            ) : (
              <Chip tone="escalated" title={`Tool calls left this machine for ${s.host} (the workspace privacy policy allows it)`}>
                {`☁ Remote · ${s.host}`}
              </Chip>
            )}{' '}
            <code>{s.server}</code> {s.local && <span className="muted">on {s.host}</span>} · {plural(s.calls, 'call')} · {formatBytes(s.bytes)}
            <ul>
              {s.tools.map((t) => (
                <li key={t.tool}>
                  <code>{t.tool}</code> · {plural(t.calls, 'call')} · {formatBytes(t.bytes)} ·{' '}
                  <span className="muted">{t.argumentNames.length ? `arguments ${t.argumentNames.join(', ')} (values not logged)` : 'no arguments'}</span>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}
