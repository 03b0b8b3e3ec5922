// A Lua script run by its SHA-1 (EVALSHA), sent whole (EVAL, which also caches it) when Redis does not
// know it: after a restart or SCRIPT FLUSH. node-redis runs scripts the same way, but only those declared
// on the client when it is created, each with a fixed number of keys; the counters' script takes as many
// keys as a turn has counters.
import { createHash } from 'node:crypto';
import type { RedisClientType } from 'redis';

export class RedisScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: RedisClientType, keys: string[], args: string[]): Promise<unknown> {
    const command = ['EVALSHA', this.sha, String(keys.length), ...keys, ...args];
    try {
      return await redis.sendCommand(command);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      command[0] = 'EVAL';
      command[1] = this.source;
      return redis.sendCommand(command);
    }
  }
}
