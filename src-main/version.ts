/** Injected by the bundler from package.json; the fallback covers running from source (tests). */
declare const __STEWARD_VERSION__: string | undefined;
export const APP_VERSION: string = typeof __STEWARD_VERSION__ === 'string' ? __STEWARD_VERSION__ : '0.0.0-dev';
