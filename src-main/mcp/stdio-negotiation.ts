import { MODERN_REVISION, newModernClient } from './modern-client';
import type { McpConnection } from './mcp-connection';
import { ModernStdioConnection, ProbeShield, stoppedForSize } from './modern-stdio-connection';
import { errorMessage } from './errors';
import type { ServerLaunch } from './server-launch';
import { STDIO_BUFFER_FULL, ServerConnection, nonProtocolOutput, stdioTail, stdioTransport, type ConnectOptions } from './server-connection';

/**
 * How long a stdio server has to answer `server/discover` before it counts as an older server that
 * ignores requests it does not know (the 2025 handshake then goes on over the same pipe, within
 * the start deadline). Half the start deadline, at most this.
 */
const MAX_PROBE_MS = 5_000;

/**
 * A stdio server, on the newest revision both sides speak (issue 30): one process is spawned and
 * asked for MCP 2026-07-28 (`server/discover`, SDK v2 client pinned to it, probing in place). A
 * server that offers it is used on it (ModernStdioConnection). One that refuses (every 2025
 * reference server answers "Method not found" at once) or stays silent gets the 2025 handshake on
 * the same process, exactly as before (ServerConnection) — the cost is one refused request. Only a
 * server that is gone after the probe (it exited, could not be spawned, or wrote something that is
 * not MCP on stdout) is started again the 2025 way, which says what is wrong exactly as it always did.
 */
export async function connectStdio(id: string, launch: ServerLaunch, options: ConnectOptions): Promise<McpConnection> {
  const deadline = Date.now() + options.startTimeoutMs;
  const log = options.onLog;
  const tail = stdioTail(id, log);
  const transport = stdioTransport(launch);
  if (transport.stderr) tail.attach(transport.stderr);
  let gone = false;
  let conn: ModernStdioConnection | undefined;
  const kill = (): void => {
    gone = true;
    const pid = transport.pid;
    if (pid === null) return;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const shield = new ProbeShield(transport, {
    error: (error) => {
      if (STDIO_BUFFER_FULL.test(error.message)) {
        if (conn) conn.stop(stoppedForSize());
        else kill();
        return;
      }
      // Not MCP on stdout while it starts: the 2025 start below fails on it, in the same words.
      if (!conn && nonProtocolOutput(error) !== undefined) kill();
    },
    exit: () => {
      gone = true;
      conn?.markExited();
    },
  });
  const client = newModernClient({ ...options, probeTimeoutMs: Math.min(MAX_PROBE_MS, Math.floor(options.startTimeoutMs / 2)) });
  client.onerror = (error) => log?.(`[mcp ${id}] ${errorMessage(error)}`);
  let refusal: unknown;
  try {
    await client.connect(shield);
  } catch (error) {
    refusal = error;
  }
  if (refusal === undefined) {
    shield.release();
    conn = new ModernStdioConnection(id, client, transport, tail, options);
    log?.(`[mcp ${id}] started pid ${conn.pid ?? '?'}, MCP ${conn.protocolVersion ?? MODERN_REVISION} (${conn.serverName ?? 'unnamed server'})`);
    return conn;
  }
  shield.detach();
  const spawned = shield.spawned;
  if (!gone && transport.pid !== null) return ServerConnection.connect(id, launch, options, { transport, tail, deadline });
  kill();
  await transport.close().catch(() => undefined);
  // Not spawned at all (a missing command): the 2025 start below says so, nothing to add.
  if (spawned) log?.(`[mcp ${id}] was gone after being asked for MCP ${MODERN_REVISION} (${errorMessage(refusal).slice(0, 200)}); starting it again for the 2025 handshake`);
  return ServerConnection.connect(id, launch, options);
}
