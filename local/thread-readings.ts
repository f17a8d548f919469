import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';

/**
 * Asks every listed thread of the local gateway for its reading on a BroadcastChannel (the deliver
 * thread has no other way out than the port it started with) and gathers one answer from each, in
 * the order of `threads`. The question goes out with an id; `answerOf` picks out the answers to it.
 * Rejects after `timeoutMs` with `silence`'s message about the threads that did not answer.
 */
export async function readThreads<Answer>(
  channelName: string,
  threads: readonly string[],
  question: Record<string, unknown>,
  answerOf: (message: unknown, id: string) => { thread: string; answer: Answer } | undefined,
  silence: (missing: string) => string,
  timeoutMs: number,
): Promise<Answer[]> {
  const channel = new BroadcastChannel(channelName);
  const id = randomUUID();
  try {
    return await new Promise<Answer[]>((resolve, reject) => {
      const got = new Map<string, Answer>();
      const timer = setTimeout(() => {
        const missing = threads.filter((thread) => !got.has(thread));
        reject(new Error(silence(missing.join(', '))));
      }, timeoutMs);
      channel.onmessage = (event) => {
        const answered = answerOf((event as { data: unknown }).data, id);
        if (!answered) return;
        got.set(answered.thread, answered.answer);
        if (threads.every((thread) => got.has(thread))) {
          clearTimeout(timer);
          resolve(threads.map((thread) => got.get(thread) as Answer));
        }
      };
      channel.postMessage({ ...question, id });
    });
  } finally {
    channel.close();
  }
}
