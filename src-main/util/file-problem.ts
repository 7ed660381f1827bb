/**
 * Why a file could not be read or written, in words a person acts on, never the system's own
 * ("EISDIR: illegal operation on a directory, read"). Other errors keep their message.
 */
export function fileProblem(err: unknown, doing: 'read' | 'write' = 'read'): string {
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT':
      return doing === 'read' ? 'no such file' : 'its folder does not exist';
    case 'ENOTDIR':
      return 'a part of its path is a file, not a folder';
    case 'EISDIR':
      return 'it is a folder, not a file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EROFS':
      return 'the disk is read-only';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
