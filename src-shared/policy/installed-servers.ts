import { PDF_PACKAGE, POSTGRES_PACKAGE, SEQUENTIAL_THINKING_PACKAGE } from './shipped-effects';

/** An MCP server installed with Steward that a person registers by package, with arguments of their own. */
export interface InstalledServer {
  package: string;
  label: string;
  /** Arguments to start from (placeholders where the person's own go). */
  args: readonly string[];
}

/**
 * Installed with Steward (package.json) and given shipped effect metadata, but not registered from
 * the start: each needs what only the person knows. PostgreSQL: the database URL without its
 * password (that goes in env PGPASSWORD as a keychain reference); PDF: stdio and the folder to read.
 */
export const INSTALLED_SERVERS: readonly InstalledServer[] = [
  { package: POSTGRES_PACKAGE, label: 'PostgreSQL', args: ['postgresql://USER@HOST:5432/DATABASE'] },
  { package: PDF_PACKAGE, label: 'PDF reader', args: ['--stdio', '${workspace}'] },
  { package: SEQUENTIAL_THINKING_PACKAGE, label: 'Sequential thinking', args: [] },
];
