// Progress of a tool call, for a client that gave a progress token. The REST call inside gives no milestones,
// so progress is time against the endpoint's own budget (its catalog `timeout`): a notification when the
// call starts, one every `everyMs` while its answer is awaited (a generation, a download, speech), and the
// last, progress = total, when the answer is in. Values only ever grow, as MCP requires.
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { EndpointSpec } from '../engine/catalog/load.js';
import { parseDuration } from '../engine/duration.js';

type Send = (n: ServerNotification) => Promise<void>;

export function reportProgress(token: string | number, spec: EndpointSpec, send: Send, everyMs = 1000): { done(): void } {
  const total = parseDuration(spec.timeout ?? '30s') / 1000;
  const started = performance.now();
  let last = -1;
  const notify = (progress: number, message: string) => {
    if (progress <= last) return;
    last = progress;
    send({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } }).catch(() => {});
  };
  notify(0, `Calling ${spec.method} /api/v1/${spec.id}`);
  const timer = setInterval(() => {
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    notify(Math.min(seconds, total - 0.1), `Waiting for the answer: ${seconds} s of at most ${total} s`);
  }, everyMs);
  timer.unref();
  return {
    done() {
      clearInterval(timer);
      notify(total, 'Answered');
    },
  };
}
