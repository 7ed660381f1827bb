import { DeprecatedFeature } from '@shared/contracts/mcp-revision';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export type { DeprecatedFeature };
/** In the order the registry lists them. */
export const DEPRECATED_FEATURES: readonly DeprecatedFeature[] = DeprecatedFeature.options;

/** Which inbound method is the use of which deprecated feature. */
const BY_METHOD = new Map<string, DeprecatedFeature>([
  ['roots/list', 'roots'],
  ['sampling/createMessage', 'sampling'],
  ['notifications/message', 'logging'],
]);

/**
 * Notes, into `seen`, every deprecated feature a 2025 server uses on this transport: it asks for
 * roots or sampling, or sends log messages. It watches what reaches the client and changes nothing:
 * the handler the client installs is wrapped as it is installed.
 */
export function watchDeprecatedUse(transport: Transport, seen: Set<DeprecatedFeature>): void {
  let handler: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (next: Transport['onmessage']) => {
      const pass = next as ((message: unknown, ...rest: unknown[]) => void) | undefined;
      handler =
        pass &&
        ((message: unknown, ...rest: unknown[]) => {
          const method = message !== null && typeof message === 'object' && 'method' in message ? message.method : undefined;
          const feature = typeof method === 'string' ? BY_METHOD.get(method) : undefined;
          if (feature) seen.add(feature);
          pass(message, ...rest);
        });
    },
  });
}
