// The `book_room` tool of both 2026-07-28 test servers (the stdio one, modern-stdio-mcp-server.mjs,
// run by node as it is, and the loopback one, src-main/mcp/modern-loopback-server.ts): it asks who
// the room is for (an `input_required` result with a form, who: default "a guest", nights: default
// 1, and an opaque requestState), then completes with the answer. Plain JavaScript so the stdio
// server needs no build; book-room.d.mts types it for the TypeScript server.
import { z } from 'zod';
import { acceptedContent, inputRequired, inputResponse } from '@modelcontextprotocol/server';

/** Registers `book_room` on `server`; `seen` hears each call, `mint` numbers each requestState, `wrap` runs the handler. */
export function registerBookRoom(server, { seen, mint, wrap = (_meta, serve) => serve() }) {
  server.registerTool(
    'book_room',
    { description: 'Books a room; asks who it is for.', inputSchema: z.object({ room: z.string() }), annotations: { readOnlyHint: false, destructiveHint: false } },
    ({ room }, ctx) =>
      wrap(ctx.mcpReq._meta, () => {
        const responses = ctx.mcpReq.inputResponses;
        const view = inputResponse(responses, 'guest');
        const state = ctx.mcpReq.requestState();
        seen({ tool: 'book_room', ...(typeof state === 'string' ? { requestState: state } : {}), ...(view.kind === 'elicit' ? { answered: view.action } : {}) }, ctx.mcpReq._meta);
        if (view.kind === 'elicit' && view.action !== 'accept') return { content: [{ type: 'text', text: `not booked: the person answered ${view.action}` }], isError: true };
        const guest = acceptedContent(responses, 'guest');
        if (guest === undefined || typeof guest.who !== 'string') {
          return inputRequired({
            inputRequests: {
              guest: inputRequired.elicit({
                message: `Who is room ${room} for?`,
                requestedSchema: {
                  type: 'object',
                  properties: { who: { type: 'string', title: 'Guest name', default: 'a guest' }, nights: { type: 'integer', title: 'Nights', default: 1, minimum: 1 } },
                  required: ['who'],
                },
              }),
            },
            requestState: `booking-${room}-${mint()}`,
          });
        }
        const nights = typeof guest.nights === 'number' ? guest.nights : 1;
        return { content: [{ type: 'text', text: `booked ${room} for ${guest.who} (${nights} night${nights === 1 ? '' : 's'})` }] };
      }),
  );
}
