import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { JsonTooDeepError, MAX_JSON_DEPTH, jsonDepthExceeds } from '@shared/util/json-depth';

/** What `client.callTool` returns: today's shape, or the pre-2024-11 `toolResult` one. */
export type RawToolResult = { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown };

export interface ToolResultText {
  content: string;
  is_error: boolean;
}

/**
 * One string for the trace and the model: text blocks as they are, binary blocks summarised
 * (`[image image/png 1234 bytes]`) so a base64 blob never floods a prompt.
 */
export function toolResultText(result: RawToolResult): ToolResultText {
  const is_error = result.isError === true;
  if (Array.isArray(result.content) && result.content.length > 0) {
    return { content: (result.content as ContentBlock[]).map(describeBlock).join('\n'), is_error };
  }
  if (result.structuredContent !== undefined) return jsonResult(result.structuredContent, is_error);
  if (result.toolResult !== undefined) return jsonResult(result.toolResult, is_error);
  return { content: '', is_error };
}

/** A JSON result as text; one nested too deep to serialise safely is an error result that says so. */
function jsonResult(value: unknown, is_error: boolean): ToolResultText {
  if (jsonDepthExceeds(value)) return { content: `the tool's result is ${new JsonTooDeepError(MAX_JSON_DEPTH).message}; it was not kept`, is_error: true };
  return { content: JSON.stringify(value), is_error };
}

export function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType} ${base64Bytes(block.data)} bytes]`;
    case 'audio':
      return `[audio ${block.mimeType} ${base64Bytes(block.data)} bytes]`;
    case 'resource_link':
      return `[resource link ${block.uri}${block.mimeType ? ` ${block.mimeType}` : ''}]`;
    case 'resource': {
      const r = block.resource;
      if ('text' in r && typeof r.text === 'string') return `[resource ${r.uri}]\n${r.text}`;
      const blob = 'blob' in r && typeof r.blob === 'string' ? r.blob : '';
      return `[resource ${r.uri}${r.mimeType ? ` ${r.mimeType}` : ''} ${base64Bytes(blob)} bytes]`;
    }
    default:
      return describeUnknown(block);
  }
}

// A block type newer than this SDK: name it rather than drop it.
function describeUnknown(block: never): string {
  const type = (block as { type?: unknown }).type;
  return `[${typeof type === 'string' ? type : 'unknown'} content]`;
}

function base64Bytes(data: string): number {
  return Buffer.byteLength(data, 'base64');
}
