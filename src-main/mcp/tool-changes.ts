import { SdkError, SdkErrorCode, type Client } from '@modelcontextprotocol/client';
import { errorMessage } from './errors';

/**
 * On 2026-07-28 a server announces a new tool list only on a `subscriptions/listen` stream the
 * client opened (the unsolicited `notifications/tools/list_changed` of the 2025 revisions is gone).
 * For a server that says its tool list can change, this opens that stream for tool changes and
 * calls `onChanged` on each, as the 2025 connection does on the notification. The stream ends with
 * the connection; one that could not be opened, or that the server ended, is logged (the tools
 * already listed stay offered).
 */
export function followToolChanges(client: Client, id: string, onChanged: () => void, log?: (line: string) => void): void {
  if (client.getProtocolEra() !== 'modern' || client.getServerCapabilities()?.tools?.listChanged !== true) return;
  client.setNotificationHandler('notifications/tools/list_changed', () => onChanged());
  client.listen({ toolsListChanged: true }).then(
    (subscription) => {
      subscription.closed.then(
        (how) => {
          if (how === 'graceful') log?.(`[mcp ${id}] the server ended its subscriptions/listen stream; later changes to its tools will not be seen`);
        },
        (error: unknown) => log?.(`[mcp ${id}] its subscriptions/listen stream failed: ${errorMessage(error)}; later changes to its tools will not be seen`),
      );
    },
    (error: unknown) => {
      // The connection closed before the server acknowledged: nothing to follow any more.
      if (error instanceof SdkError && (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected)) return;
      log?.(`[mcp ${id}] could not follow its tool list (subscriptions/listen): ${errorMessage(error)}`);
    },
  );
}
