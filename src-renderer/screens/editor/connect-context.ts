import { createContext } from 'react';
import type { PortRef } from './connect-targets';

/**
 * How a node's output port starts a connection from the keyboard (Enter or Space on the port):
 * the editor opens its picker of compatible inputs. Absent outside the editor (a static render).
 */
export const StartConnect = createContext<((from: PortRef) => void) | undefined>(undefined);
