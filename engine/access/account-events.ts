// What happens to an account that its owner may want to hear of: quota thresholds crossed (the meter), keys
// made or ended (the key store), a plan changed (the portal's accounts). Emitters do not wait for
// listeners; the listeners (email, webhooks) deliver on their own time and log their own failures. Events
// are heard in the process that saw them, so each happens once however many instances run.
import type { Logger } from 'pino';

export interface AccountEventData {
  /** A plan's allowance reached 80% (warning) or 100% (exhausted) of its limit in the current window. */
  'quota.warning': { plan: string; limit: number; used: number; resetAt: string };
  'quota.exhausted': { plan: string; limit: number; used: number; resetAt: string };
  'key.created': { keyId: string; name: string; hint?: string; plan: string };
  /** `reason`: revoked by the user or an admin, ended by a rotation without grace, or the account deleted. */
  'key.revoked': { keyId: string; name: string; hint?: string; reason: 'revoked' | 'rotated' | 'account-deleted' };
  'plan.changed': { from: string; to: string };
}

export type AccountEventType = keyof AccountEventData;
export const ACCOUNT_EVENT_TYPES: AccountEventType[] = ['quota.warning', 'quota.exhausted', 'key.created', 'key.revoked', 'plan.changed'];

export type AccountEvent = {
  [T in AccountEventType]: { type: T; accountId: string; at: string; data: AccountEventData[T] };
}[AccountEventType];

export type AccountEventListener = (event: AccountEvent) => void | Promise<void>;

export class AccountEvents {
  private readonly listeners: AccountEventListener[] = [];

  /** `log`: where a listener's unhandled failure is told. */
  constructor(private readonly log?: Pick<Logger, 'warn'>) {}

  on(listener: AccountEventListener): void {
    this.listeners.push(listener);
  }

  emit<T extends AccountEventType>(type: T, accountId: string, data: AccountEventData[T]): void {
    const event = { type, accountId, at: new Date().toISOString(), data } as AccountEvent;
    for (const listener of this.listeners) {
      try {
        const done = listener(event);
        if (done instanceof Promise) done.catch((err: Error) => this.warn(event, err));
      } catch (err) {
        this.warn(event, err as Error);
      }
    }
  }

  private warn(event: AccountEvent, err: Error) {
    this.log?.warn({ err: err.message, event: event.type, accountId: event.accountId }, 'account event: a listener failed');
  }
}
