import type { McpServer } from '@modelcontextprotocol/server';

/** What `book_room` saw of a call: the requestState it came back with, and the person's answer. */
export interface BookRoomSeen {
  tool: 'book_room';
  requestState?: string;
  answered?: 'accept' | 'decline' | 'cancel';
}

export declare function registerBookRoom(
  server: McpServer,
  hooks: {
    seen(call: BookRoomSeen, meta: Readonly<Record<string, unknown>> | undefined): void;
    mint(): number;
    wrap?: <T>(meta: Readonly<Record<string, unknown>> | undefined, serve: () => T) => T | Promise<T>;
  },
): void;
