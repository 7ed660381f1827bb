import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, protocol, session as electronSession, shell, type IpcMainInvokeEvent } from 'electron';
import type { ResponseFrame } from '@shared/contracts/host-api';
import { createHost } from '../../composition/create-host';
import type { ConfirmAction, Host, HostSession } from '../../composition/host-types';
import { APP_SCHEME, APP_SCHEME_PRIVILEGES, appResponseHeaders, resolveAppRequest } from './app-protocol';
import { IPC_EVENTS, IPC_REQUEST } from './channels';
import { externalLinkToOpen, grantsPermission, rendererEntry } from './navigation-policy';
import { isTrustedSender } from './trusted-sender';
import { UNLOAD_PROMPT, leaves } from './unload-prompt';

/**
 * The desktop shell: one window on the built renderer, the host in this process, IPC as the
 * transport. Only our own page in our own window may call the host. The decisions live in pure
 * modules beside this file (app-protocol, navigation-policy, trusted-sender); docs/security.md
 * maps them to Electron's security checklist.
 */

/** Set by electron.vite.config.ts: true only under `electron-vite dev`, false in every build. */
declare const __STEWARD_DEV__: boolean | undefined;

const preloadPath = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));
const rendererDir = fileURLToPath(new URL('../renderer', import.meta.url));
// electron-vite dev serves the renderer over HTTP; a build never honours ELECTRON_RENDERER_URL.
const rendererUrl = rendererEntry({ dev: typeof __STEWARD_DEV__ === 'boolean' && __STEWARD_DEV__, devUrl: process.env.ELECTRON_RENDERER_URL });

// Before `ready`: steward:// is a standard, secure scheme (a real origin, no file:// reach).
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }]);

let host: Host | null = null;
let mainWindow: BrowserWindow | null = null;
let hostClosed = false;
/** A quit waits for the window to close first (it may keep unsaved edits open); set while it does. */
let quitting = false;
/** Sessions by webContents id: the IPC handler finds the caller's session from the sender. */
const sessions = new Map<number, HostSession>();

const log = (line: string) => process.stderr.write(`steward: ${line}\n`);

function createWindow(activeHost: Host): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'Steward',
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
    },
  });
  const contents = window.webContents;
  const windowSession: HostSession = {
    id: `electron-window-${contents.id}`,
    push(frame) {
      // Events not delivered here stay in the outbox: the page re-subscribes after a reload.
      if (!contents.isDestroyed()) contents.send(IPC_EVENTS, frame);
    },
  };
  sessions.set(contents.id, windowSession);

  contents.setWindowOpenHandler(({ url }) => {
    // A link opened in a new window leaves the app for the system browser, after the check
    // (http(s) only, no userinfo); the app itself never opens windows.
    const external = externalLinkToOpen(url);
    if (external) void shell.openExternal(external).catch((error: unknown) => log(`cannot open ${external}: ${messageOf(error)}`));
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (!isTrustedSender(url, rendererUrl)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isTrustedSender(url, rendererUrl)) event.preventDefault();
  });
  contents.on('render-process-gone', () => activeHost.detach(windowSession));
  // The editor refused to unload (unsaved changes): a reload or a close asks, as a browser does.
  contents.on('will-prevent-unload', (event) => {
    if (leaves(dialog.showMessageBoxSync(window, { ...UNLOAD_PROMPT, buttons: [...UNLOAD_PROMPT.buttons] }))) event.preventDefault();
    else quitting = false;
  });
  window.once('ready-to-show', () => window.show());
  window.on('closed', () => {
    activeHost.detach(windowSession);
    sessions.delete(contents.id);
    if (mainWindow === window) mainWindow = null;
  });

  void window.loadURL(rendererUrl).catch((error: unknown) => log(`cannot load the renderer ${rendererUrl}: ${messageOf(error)}`));
  return window;
}

async function handleRequest(event: IpcMainInvokeEvent, frame: unknown): Promise<ResponseFrame> {
  const frameUrl = event.senderFrame?.url ?? '';
  const isMainFrame = event.senderFrame !== null && event.senderFrame.parent === null;
  const windowSession = sessions.get(event.sender.id);
  if (!host || !mainWindow || event.sender !== mainWindow.webContents || !isMainFrame || !windowSession || !isTrustedSender(frameUrl, rendererUrl)) {
    log(`refused an IPC request from ${frameUrl || 'an unknown frame'}`);
    return { kind: 'response', id: requestIdOf(frame), ok: false, error: { code: 'forbidden', message: 'Only the Steward window may call the host' } };
  }
  try {
    return await host.handle(frame, windowSession);
  } catch (error) {
    // Host.handle promises never to throw; the page still gets an answer if it does.
    return { kind: 'response', id: requestIdOf(frame), ok: false, error: { code: 'host_error', message: messageOf(error) } };
  }
}

/**
 * Explicit actions that widen access are approved in a native dialog from this process, which the
 * page cannot script or fake. Deny is the default button and what Escape picks.
 */
const confirmInDialog: ConfirmAction = {
  kind: 'dialog',
  async ask({ title, detail }) {
    const options = { type: 'warning' as const, buttons: ['Deny', 'Allow'], defaultId: 0, cancelId: 0, noLink: true, title: 'Steward', message: `Allow Steward to ${title}?`, detail };
    const { response } = mainWindow ? await dialog.showMessageBox(mainWindow, options) : await dialog.showMessageBox(options);
    return response === 1;
  },
};

/** steward://app/… → a file of out/renderer (static-files lookup), every response with the CSP. */
function serveAppProtocol(): void {
  const root = realpathSync(rendererDir);
  protocol.handle(APP_SCHEME, async (request) => {
    const found = resolveAppRequest(root, request.url);
    const headers = appResponseHeaders(found);
    if (found.kind !== 'file') return new Response(found.kind === 'bad_request' ? 'Bad Request' : 'Not Found', { status: found.kind === 'bad_request' ? 400 : 404, headers });
    try {
      return new Response(await readFile(found.file), { status: 200, headers });
    } catch {
      return new Response('Not Found', { status: 404, headers: appResponseHeaders({ kind: 'not_found' }) });
    }
  });
}

async function start(): Promise<void> {
  await app.whenReady();
  serveAppProtocol();
  // The app needs no camera, microphone, notifications or other device permission: every request
  // and every check (what a page may use without asking) is refused.
  electronSession.defaultSession.setPermissionRequestHandler((_contents, permission, callback) => callback(grantsPermission(permission)));
  electronSession.defaultSession.setPermissionCheckHandler((_contents, permission) => grantsPermission(permission));
  const activeHost = await createHost({ dataDir: app.getPath('userData'), shell: 'electron', log, confirm: confirmInDialog, openUrl: (url) => void shell.openExternal(url).catch((error: unknown) => log(`cannot open ${url}: ${messageOf(error)}`)) });
  host = activeHost;
  ipcMain.handle(IPC_REQUEST, handleRequest);
  mainWindow = createWindow(activeHost);
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow(activeHost);
  });
}

// One process owns the outbox and the idempotency ledger: a second launch focuses the first.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  // Every web contents, whatever creates it: no <webview>, no new windows, no navigation away
  // (createWindow then installs the main window's own handlers, which open checked links).
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-attach-webview', (attachEvent) => attachEvent.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-navigate', (navigateEvent, url) => {
      if (!isTrustedSender(url, rendererUrl)) navigateEvent.preventDefault();
    });
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin' || quitting) app.quit();
  });
  app.on('before-quit', (event) => {
    // The window goes first: the page may ask to keep unsaved edits (will-prevent-unload), and
    // staying cancels the quit; once it has closed, window-all-closed quits again, to here.
    if (mainWindow && !mainWindow.isDestroyed()) {
      event.preventDefault();
      quitting = true;
      mainWindow.close();
      return;
    }
    if (!host || hostClosed) return;
    // Finish runs' cleanup (MCP servers, journal) before the process goes.
    event.preventDefault();
    const closing = host;
    host = null;
    closing
      .close()
      .catch((error: unknown) => log(`error while closing the host: ${messageOf(error)}`))
      .finally(() => {
        hostClosed = true;
        app.quit();
      });
  });
  start().catch((error: unknown) => {
    log(`cannot start: ${messageOf(error)}`);
    app.exit(1);
  });
}

function requestIdOf(value: unknown): number {
  if (typeof value === 'object' && value !== null && 'id' in value) {
    const { id } = value;
    if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) return id;
  }
  return 0;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
