import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChannelAddress } from '@shared/contracts/cli-channel';
import { writeFileAtomic } from '../../util/write-file-atomic';

/** Where a host on this data folder says it listens (mode 0600: only the user reads the token). */
export const channelFile = (dataDir: string) => join(dataDir, 'cli-channel.json');

/** Unix socket paths are limited to ~104 bytes (macOS) or 108 (Linux): a deep folder gets a short name elsewhere. */
const MAX_SOCKET_PATH = 100;

/**
 * The socket (or pipe) for a data folder: `steward.sock` inside it when the path is short enough,
 * else a name derived from the folder in the user's runtime or temp folder. Either way only the
 * user may open it (the host sets 0600) and a client must also present the token.
 */
export function socketPathFor(dataDir: string, platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  const hash = createHash('sha256').update(dataDir).digest('hex').slice(0, 24);
  if (platform === 'win32') return `\\\\.\\pipe\\steward-${hash}`;
  const inside = join(dataDir, 'steward.sock');
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return inside;
  const runtime = env.XDG_RUNTIME_DIR && Buffer.byteLength(env.XDG_RUNTIME_DIR) < 60 ? env.XDG_RUNTIME_DIR : tmpdir();
  return join(runtime, `steward-${hash}.sock`);
}

export const newChannelToken = () => randomBytes(32).toString('hex');

/** Written atomically (temp file, rename), readable by the user alone. */
export function writeChannelAddress(dataDir: string, address: ChannelAddress): void {
  writeFileAtomic(channelFile(dataDir), (write) => write(`${JSON.stringify(address)}\n`));
}

/** The address of the host on this folder, or undefined (none, or a file that does not parse). */
export function readChannelAddress(dataDir: string): ChannelAddress | undefined {
  let text: string;
  try {
    text = readFileSync(channelFile(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = ChannelAddress.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the address only while it is still this host's (a newer host may have written its own). */
export function removeChannelAddress(dataDir: string, token: string): void {
  if (readChannelAddress(dataDir)?.token === token) rmSync(channelFile(dataDir), { force: true });
}
