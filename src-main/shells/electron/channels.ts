/** The two IPC channels between the preload and the main process: nothing else is exposed. */
export const IPC_REQUEST = 'steward:request';
export const IPC_EVENTS = 'steward:events';
