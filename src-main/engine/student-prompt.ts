import type { Decision } from '@shared/contracts/decision';
import type { HistoryEntry } from '@shared/contracts/history';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { feedbackMessage, historyTurns, studentPromptData, studentSystemMessage, taskMessage, type BuiltPrompt } from '../providers/prompts';
import type { ChatMessage } from '../providers/provider';

/** The run's value mask: `version` changes whenever what `text` masks changes. */
export interface PromptMask {
  text(text: string): string;
  version(): number;
}

export interface StudentPromptParts {
  instructions: string;
  task: string;
  snapshot: ToolSnapshot;
  /** The canonical history as it stands (entries are read, never kept beyond their fields). */
  history: readonly HistoryEntry[];
  feedback?: string;
  mode: 'structured' | 'tools';
}

interface Turn {
  decision: Decision;
  result: string | undefined;
  isError: boolean | undefined;
  version: number;
  messages: readonly ChatMessage[];
}

/**
 * The student's prompt, masked, exactly as `buildStudentPrompt` followed by the mask makes it, with
 * the work of a round kept to what changed (issue 26: before, every round rebuilt and re-serialised
 * every turn of the history, so a round of a 200-round run cost 1.6× one of a 20-round run). Each
 * history entry's turns are built and masked once and reused while the entry, and the mask, stay
 * as they were; the system message while the instructions, mode and tools do. Messages are frozen:
 * the same objects go out round after round (what `requestBytes` counts once).
 *
 * Sensitive tool arguments are redacted over the whole history at once (a value found in one entry
 * is masked in every other), so when a round's tools have any the caller builds the prompt whole.
 */
export class StudentPromptCache {
  private system: { key: string; message: ChatMessage } | undefined;
  private taskTurn: { key: string; message: ChatMessage } | undefined;
  private readonly turns: Turn[] = [];
  /** The system message, the task's, then each entry's turns in order (what `assembledTurns` lists, each ending at `assembledEnds`). */
  private assembled: ChatMessage[] = [];
  private assembledTurns: (readonly ChatMessage[])[] = [];
  private assembledEnds: number[] = [];

  constructor(private readonly mask: PromptMask | undefined) {}

  build(parts: StudentPromptParts): BuiltPrompt {
    const version = this.mask?.version() ?? 0;
    const systemKey = `${version}\u0000${parts.mode}\u0000${parts.snapshot.hash}\u0000${parts.instructions}`;
    if (this.system?.key !== systemKey) this.system = { key: systemKey, message: this.masked(studentSystemMessage(parts)) };
    const taskKey = `${version}\u0000${parts.task}`;
    if (this.taskTurn?.key !== taskKey) this.taskTurn = { key: taskKey, message: this.masked(taskMessage(parts.task)) };
    const { history } = parts;
    const assembled = this.assemble(this.system.message, this.taskTurn.message);
    // The messages assembled last round stand while each entry's turns are the very same objects.
    let kept = true;
    for (let index = 0; index < history.length; index += 1) {
      const turns = this.turnsOf(history[index]!, index, version);
      if (kept && this.assembledTurns[index] === turns) continue;
      if (kept) {
        kept = false;
        assembled.length = this.assembledEnds[index - 1] ?? 2;
        this.assembledTurns.length = index;
        this.assembledEnds.length = index;
      }
      for (let i = 0; i < turns.length; i += 1) assembled.push(turns[i]!);
      this.assembledTurns.push(turns);
      this.assembledEnds.push(assembled.length);
    }
    if (kept && this.assembledTurns.length > history.length) {
      assembled.length = this.assembledEnds[history.length - 1] ?? 2;
      this.assembledTurns.length = history.length;
      this.assembledEnds.length = history.length;
    }
    // A history that lost entries (never in a run; a new cache is cheap): nothing stale is kept.
    this.turns.length = Math.min(this.turns.length, history.length);
    // The round's own array (its caller keeps it): a copy, made at its final size.
    const messages = assembled.slice();
    const feedback = feedbackMessage(parts.feedback);
    if (feedback) messages.push(this.masked(feedback));
    return { messages, data: studentPromptData(parts) };
  }

  private assemble(system: ChatMessage, task: ChatMessage): ChatMessage[] {
    if (this.assembled[0] !== system || this.assembled[1] !== task) {
      this.assembled = [system, task];
      this.assembledTurns = [];
      this.assembledEnds = [];
    }
    return this.assembled;
  }

  private turnsOf(entry: HistoryEntry, index: number, version: number): readonly ChatMessage[] {
    const known = this.turns[index];
    if (known && known.decision === entry.decision && known.result === entry.result && known.isError === entry.result_is_error && known.version === version) return known.messages;
    const messages = Object.freeze(historyTurns(entry).map((message) => this.masked(message)));
    this.turns[index] = { decision: entry.decision, result: entry.result, isError: entry.result_is_error, version, messages };
    return messages;
  }

  private masked(message: ChatMessage): ChatMessage {
    return Object.freeze(this.mask ? { ...message, content: this.mask.text(message.content) } : message);
  }
}
