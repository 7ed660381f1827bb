import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { SamplingAsk, SamplingReply } from './client-capabilities';

/** A server's sampling request as the person reviews it: the conversation, how long, and which model would answer. */
export interface SamplingReview extends SamplingAsk {
  model: string;
  /** The model's answer: present on the second question, whether it may go back to the server. */
  reply?: string;
}

export type SamplingVerdict = 'allow' | 'deny';
export type ReviewSample = (ask: SamplingReview) => Promise<SamplingVerdict>;

export const DECLINED = 'the person declined this sampling request';
export const REPLY_WITHHELD = 'the person did not let the model\'s answer go back to the server';
export const NOBODY_TO_ASK = 'this sampling request needs a person to allow it, and nobody could be asked here, so it was declined';

/**
 * For a server with `sampling: "ask"`: the person sees the request before any model does; denied
 * (or nobody to ask), the server gets an error saying so and no model is called. Allowed, the
 * person then sees the model's answer before the server does (MCP asks clients to let a person
 * review both): withheld, the server gets an error and never the answer.
 */
export function reviewedSampling(onSample: (ask: SamplingAsk) => Promise<SamplingReply>, review: ReviewSample | undefined, model: string): (ask: SamplingAsk) => Promise<SamplingReply> {
  return async (ask) => {
    if (!review) throw new McpError(ErrorCode.InvalidRequest, NOBODY_TO_ASK);
    const verdict = await review({ ...ask, model });
    if (verdict !== 'allow') throw new McpError(ErrorCode.InvalidRequest, DECLINED);
    const reply = await onSample(ask);
    const send = await review({ ...ask, model, reply: reply.text });
    if (send !== 'allow') throw new McpError(ErrorCode.InvalidRequest, REPLY_WITHHELD);
    return reply;
  };
}

/** What the person reviews is masked like the rest of the run: a secret the run knows never reaches a page. */
export function maskedReview(review: ReviewSample | undefined, mask: (text: string) => string): ReviewSample | undefined {
  return review && ((ask) => review({ ...ask, messages: ask.messages.map((m) => ({ ...m, content: mask(m.content) })), ...(ask.reply !== undefined ? { reply: mask(ask.reply) } : {}) }));
}
