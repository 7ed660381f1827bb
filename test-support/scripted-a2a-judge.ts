import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { Role, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

/**
 * A real A2A server (@a2a-js/sdk's DefaultRequestHandler over express, JSON-RPC, its agent card at
 * /.well-known/agent-card.json) on loopback, whose agent logic is a scripted judge: the test double
 * at the model boundary, as the scripted provider is for a model judge. It answers each judgment
 * request with the next scripted reply — a verdict as a data part, or text — and records every HTTP
 * request it saw and every message it was sent.
 */

/** A verdict given as a data part, as text (JSON or prose), or made from the request's data part (the outputs to cite). */
export type ScriptedReply = { data: unknown } | { text: string } | ((request: JudgmentRequestData) => { data: unknown } | { text: string });

export interface JudgmentRequestData {
  judgment_id: string;
  iteration: number;
  output: string;
  outputs: Array<{ id: string; member_id: string; text: string }>;
}

export interface ScriptedA2aJudge {
  url: string;
  port: number;
  /** Every HTTP request the server saw (method and path): empty when nothing was sent. */
  requests: Array<{ method: string; path: string }>;
  /** The text and data of each judgment request it received. */
  received: Array<{ text: string; data: unknown }>;
  close(): Promise<void>;
}

export const SCRIPTED_JUDGE_CARD = { name: 'Scripted strict reviewer', version: '1.2.0', description: 'Reviews design notes for completeness (a scripted test double).' };

const part = (content: Part['content'], mediaType: string): Part => ({ content, metadata: undefined, filename: '', mediaType });

export async function startScriptedA2aJudge(script: ScriptedReply[]): Promise<ScriptedA2aJudge> {
  const requests: ScriptedA2aJudge['requests'] = [];
  const received: ScriptedA2aJudge['received'] = [];
  const app = express();
  app.use((req, _res, next) => {
    requests.push({ method: req.method, path: req.path });
    next();
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const card: AgentCard = {
    ...SCRIPTED_JUDGE_CARD,
    supportedInterfaces: [{ url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    capabilities: { streaming: false, pushNotifications: false, extensions: [] } as unknown as AgentCard['capabilities'],
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [{ id: 'review', name: 'Review a draft', description: 'Approves or rejects with feedback', tags: ['judgment'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const executor: AgentExecutor = {
    execute: async (ctx, bus) => {
      const parts = ctx.userMessage.parts;
      const text = parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
      const dataPart = parts.find((p) => p.content?.$case === 'data');
      const data: unknown = dataPart?.content?.$case === 'data' ? dataPart.content.value : undefined;
      received.push({ text, data });
      const next = script.shift();
      if (next === undefined) throw new Error('the scripted judge has no reply left');
      const reply = typeof next === 'function' ? next(data as JudgmentRequestData) : next;
      const message: Message = {
        messageId: randomUUID(),
        contextId: ctx.contextId,
        taskId: '',
        role: Role.ROLE_AGENT,
        parts: ['data' in reply ? part({ $case: 'data', value: reply.data }, 'application/json') : part({ $case: 'text', value: reply.text }, 'text/plain')],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      bus.publish(AgentEvent.message(message));
      bus.finished();
    },
    cancelTask: async () => {},
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    port,
    requests,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
