import type { EffectClass, ToolEffect } from '../contracts/tool-effect';

/**
 * Shipped effect metadata for the reference MCP servers, keyed by npm package. Classified by reading
 * each tool's behaviour (listed by running the servers, v2026.8.31), not by trusting their
 * annotations. A tool we are not sure about is deliberately absent: absent means `missing`, and
 * missing is protected.
 */
export interface ShippedServer {
  /**
   * `serverInfo.name` the server reports on initialize. Informational only: a self-reported name is
   * never trusted to select shipped metadata (see effect-registry.ts).
   */
  serverNames: readonly string[];
  tools: Readonly<Record<string, ToolEffect>>;
}

function effect(cls: EffectClass, idempotent: boolean): ToolEffect {
  return { effect: cls, requires_user_confirmation: false, idempotency_supported: idempotent, sensitive_arguments: [] };
}

const READ = effect('read', true);

export const FILESYSTEM_PACKAGE = '@modelcontextprotocol/server-filesystem';
export const MEMORY_PACKAGE = '@modelcontextprotocol/server-memory';
export const EVERYTHING_PACKAGE = '@modelcontextprotocol/server-everything';
/** Installed with Steward, registered by a person with their own arguments (a database URL, a folder). */
export const POSTGRES_PACKAGE = '@modelcontextprotocol/server-postgres';
export const PDF_PACKAGE = '@modelcontextprotocol/server-pdf';
export const SEQUENTIAL_THINKING_PACKAGE = '@modelcontextprotocol/server-sequential-thinking';

export const SHIPPED_EFFECTS: Readonly<Record<string, ShippedServer>> = {
  [FILESYSTEM_PACKAGE]: {
    serverNames: ['secure-filesystem-server'],
    tools: {
      read_file: READ,
      read_text_file: READ,
      read_media_file: READ,
      read_multiple_files: READ,
      list_directory: READ,
      list_directory_with_sizes: READ,
      directory_tree: READ,
      search_files: READ,
      get_file_info: READ,
      list_allowed_directories: READ,
      // Overwrites whatever was there: the old content is gone, but writing the same content twice is harmless.
      write_file: effect('irreversible_write', true),
      edit_file: effect('irreversible_write', false),
      create_directory: effect('reversible_write', true),
      move_file: effect('irreversible_write', false),
    },
  },
  [MEMORY_PACKAGE]: {
    serverNames: ['memory-server'],
    tools: {
      read_graph: READ,
      search_nodes: READ,
      open_nodes: READ,
      // The server skips entities, relations and observations that already exist, so a repeat is a no-op;
      // a delete undoes them.
      create_entities: effect('reversible_write', true),
      create_relations: effect('reversible_write', true),
      add_observations: effect('reversible_write', true),
      delete_entities: effect('irreversible_write', true),
      delete_observations: effect('irreversible_write', true),
      delete_relations: effect('irreversible_write', true),
    },
  },
  [EVERYTHING_PACKAGE]: {
    serverNames: ['mcp-servers/everything'],
    tools: {
      echo: READ,
      'get-annotated-message': READ,
      'get-resource-links': READ,
      'get-resource-reference': READ,
      'get-structured-content': READ,
      'get-sum': READ,
      'get-tiny-image': READ,
      'trigger-long-running-operation': READ,
      'toggle-simulated-logging': effect('reversible_write', false),
      'toggle-subscriber-updates': effect('reversible_write', false),
      // Fetches an http(s) URL the model chooses.
      'gzip-file-as-resource': effect('external_communication', false),
      // Left out on purpose (missing → protected): `get-env` returns the server's whole environment,
      // which may hold secrets; the sampling/elicitation/roots/task tools act through the client.
    },
  },
  // Classified by running them against a private PostgreSQL 15 cluster and a PDF made for the test
  // (src-main/mcp/third-party/): server-postgres 0.6.2, server-pdf 2.0.4, server-sequential-thinking 2026.8.31.
  [POSTGRES_PACKAGE]: {
    serverNames: ['example-servers/postgres'],
    tools: {
      // Described as "Run a read-only SQL query", but not read-only: the SQL runs inside BEGIN READ ONLY
      // as one simple query, so "COMMIT; INSERT …" ends that transaction and writes. Protected; a person
      // whose database role can only SELECT may mark it read (Tool safety says what that trusts).
      query: effect('irreversible_write', false),
    },
  },
  [PDF_PACKAGE]: {
    serverNames: ['PDF Server'],
    tools: {
      list_pdfs: READ,
      // Reads a local file under its folders, or downloads any HTTPS URL the model names.
      display_pdf: effect('external_communication', true),
      // Its save_as writes the annotated PDF over a file (overwrite: true).
      interact: effect('irreversible_write', false),
      // The app-only tools (read_pdf_bytes, save_pdf, poll_pdf_commands, submit_*) are never offered to a model.
    },
  },
  [SEQUENTIAL_THINKING_PACKAGE]: {
    serverNames: ['sequential-thinking-server'],
    tools: {
      // Keeps the thoughts in the server's memory for this run; nothing outside it changes.
      sequentialthinking: READ,
    },
  },
};
