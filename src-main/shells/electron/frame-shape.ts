import type { ClientFrame } from '@shared/contracts/host-api';

/**
 * The request-frame check the sandboxed preload can afford. A sandboxed preload cannot `require`
 * packages, and electron-vite externalizes dependencies, so zod is out of reach there; this is the
 * same shape as the `ClientFrame` schema (a test holds the two together), and the main process
 * validates the full frame with zod on arrival anyway.
 */
export function isClientFrame(value: unknown): value is ClientFrame {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  // Exactly the schema's keys: kind, id, method, and optionally params.
  const allowed = ['kind', 'id', 'method', 'params'];
  if (!['kind', 'id', 'method'].every((key) => keys.includes(key)) || !keys.every((key) => allowed.includes(key))) return false;
  const frame = value as Record<string, unknown>;
  return (
    frame.kind === 'request' &&
    typeof frame.id === 'number' &&
    Number.isSafeInteger(frame.id) &&
    frame.id >= 0 &&
    typeof frame.method === 'string'
  );
}
