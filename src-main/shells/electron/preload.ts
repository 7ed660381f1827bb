import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { BRIDGE_GLOBAL, type StewardBridge } from '@shared/contracts/bridge';
import { IPC_EVENTS, IPC_REQUEST } from './channels';
import { isClientFrame } from './frame-shape';

/**
 * The desktop shell's preload (sandboxed, context-isolated): exposes exactly `window.steward`
 * with two functions. The page never sees ipcRenderer, event objects or any other channel.
 */
const bridge: StewardBridge = {
  request(frame) {
    if (!isClientFrame(frame)) return Promise.reject(new Error('steward.request: not a request frame'));
    return ipcRenderer.invoke(IPC_REQUEST, frame) as Promise<unknown>;
  },
  onEvents(callback) {
    if (typeof callback !== 'function') throw new TypeError('steward.onEvents: callback must be a function');
    // Only the frame crosses: the IPC event would hand the page a sender object.
    const listener = (_event: IpcRendererEvent, frame: unknown) => callback(frame);
    ipcRenderer.on(IPC_EVENTS, listener);
    return () => {
      ipcRenderer.removeListener(IPC_EVENTS, listener);
    };
  },
};

contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, bridge);
